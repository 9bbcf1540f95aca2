package org.mooncake.osgi.epd.demo;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One user turn: text first, then media items, asked of {@code model}. The text comes first on
 * purpose: every case's text differs, so no two prompts share a KV prefix, and each request's
 * prefill really loads its hidden states and saves its KV (with media first, a repeated image
 * would let the prefill reuse the earlier request's KV blocks and skip the hidden state).
 */
public record Prompt(String model, String text, List<Media> media, int maxTokens) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A media part: an image ({@code image_url}) or a video ({@code video_url}, an animated GIF). */
    public record Media(boolean video, String dataUrl, int frames) {
        public static Media image(String dataUrl) {
            return new Media(false, dataUrl, 1);
        }

        public static Media video(String dataUrl, int frames) {
            return new Media(true, dataUrl, frames);
        }
    }

    public Prompt {
        media = List.copyOf(media);
    }

    /** The OpenAI chat request body; text-only content is a plain string, as most clients send it. */
    public String body(boolean stream) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", model);
        ObjectNode message = root.putArray("messages").addObject();
        message.put("role", "user");
        if (media.isEmpty()) {
            message.put("content", text);
        } else {
            ArrayNode parts = message.putArray("content");
            parts.addObject().put("type", "text").put("text", text);
            for (Media m : media) {
                String type = m.video() ? "video_url" : "image_url";
                parts.addObject().put("type", type).putObject(type).put("url", m.dataUrl());
            }
        }
        root.put("max_tokens", maxTokens);
        root.put("temperature", 0);
        root.put("stream", stream);
        return root.toString();
    }
}
