package org.mooncake.osgi.epd.worker.impl;

import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.epd.api.MediaIds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An OpenAI chat request as the worker reads it: the model, the conversation as text and media
 * parts (in order, each message framed by the chat template's role markers), how many tokens to
 * generate, whether to stream, and the {@code kv_transfer_params} a prefill handed on. Parsing
 * refuses what the worker cannot serve with an {@link ApiError} naming the place.
 */
record ChatRequest(String model, List<Part> parts, int maxTokens, boolean stream, ObjectNode kvTransferParams) {
    static final int DEFAULT_MAX_TOKENS = 16;

    /** One piece of the rendered conversation. */
    sealed interface Part {
    }

    record Text(String text) implements Part {
    }

    /** A media item: its URL (data or http), the id its hidden state is stored under, and whether a video was asked for. */
    record Media(String url, String id, boolean video) implements Part {
    }

    List<Media> media() {
        return parts.stream().filter(p -> p instanceof Media).map(p -> (Media) p).toList();
    }

    static ChatRequest parse(JsonNode body, int maxContext) {
        if (body == null || !body.isObject()) {
            throw ApiError.badRequest("invalid_json", null, "the body must be a JSON object");
        }
        JsonNode model = body.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw ApiError.badRequest("missing_required_parameter", "model", "'model' is required");
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ApiError.badRequest("missing_required_parameter", "messages", "'messages' must be a non-empty array");
        }
        List<Part> parts = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String at = "messages[" + i + "]";
            JsonNode role = m == null ? null : m.get("role");
            if (role == null || !role.isTextual() || !List.of("system", "user", "assistant").contains(role.asText())) {
                throw ApiError.badRequest("invalid_value", at + ".role", "role must be system, user or assistant");
            }
            parts.add(new Text("<|" + role.asText() + "|>\n"));
            content(m.get("content"), at + ".content", parts);
            parts.add(new Text("\n"));
        }
        parts.add(new Text("<|assistant|>\n"));
        int maxTokens = maxTokens(body, maxContext);
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw ApiError.badRequest("invalid_type", "stream", "'stream' must be a boolean");
        }
        JsonNode kv = body.get("kv_transfer_params");
        if (kv != null && !kv.isNull() && !kv.isObject()) {
            throw ApiError.badRequest("invalid_type", "kv_transfer_params", "'kv_transfer_params' must be an object");
        }
        return new ChatRequest(model.asText(), List.copyOf(merge(parts)), maxTokens,
                stream != null && stream.asBoolean(false), kv == null || kv.isNull() ? null : (ObjectNode) kv);
    }

    private static void content(JsonNode content, String at, List<Part> parts) {
        if (content == null || content.isNull()) {
            throw ApiError.badRequest("missing_required_parameter", at, "content is required");
        }
        if (content.isTextual()) {
            parts.add(new Text(content.asText()));
            return;
        }
        if (!content.isArray()) {
            throw ApiError.badRequest("invalid_type", at, "content must be a string or an array of parts");
        }
        for (int j = 0; j < content.size(); j++) {
            JsonNode part = content.get(j);
            String here = at + "[" + j + "]";
            String type = part.path("type").asText("");
            switch (type) {
                case "text" -> {
                    JsonNode t = part.get("text");
                    if (t == null || !t.isTextual()) {
                        throw ApiError.badRequest("invalid_value", here + ".text", "a text part needs 'text'");
                    }
                    parts.add(new Text(t.asText()));
                }
                case "image_url", "video_url" -> parts.add(media(part, type, here));
                default -> throw ApiError.badRequest("unsupported_content_part", here + ".type",
                        "content part type '" + type + "' is not supported (text, image_url, video_url)");
            }
        }
    }

    /** The part's URL and id: the uuid the proxy injected, else the same content-derived id computed here. */
    private static Media media(JsonNode part, String type, String at) {
        JsonNode url = part.path(type).get("url");
        if (url == null || !url.isTextual() || url.asText().isBlank()) {
            throw ApiError.badRequest("invalid_value", at + "." + type + ".url", "a media part needs a URL");
        }
        JsonNode uuid = part.get("uuid");
        String id;
        try {
            id = uuid != null && uuid.isTextual() && !uuid.asText().isBlank() ? uuid.asText() : MediaIds.of(url.asText());
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("invalid_value", at + "." + type + ".url", e.getMessage());
        }
        return new Media(url.asText(), id, type.equals("video_url"));
    }

    private static int maxTokens(JsonNode body, int maxContext) {
        JsonNode n = body.has("max_completion_tokens") ? body.get("max_completion_tokens") : body.get("max_tokens");
        if (n == null || n.isNull()) {
            return DEFAULT_MAX_TOKENS;
        }
        if (!n.canConvertToInt() || n.asInt() < 1 || n.asInt() > maxContext) {
            throw ApiError.badRequest("invalid_value", "max_tokens", "max_tokens must be 1 to " + maxContext);
        }
        return n.asInt();
    }

    /** Neighbouring text parts as one (the token layout is the same; fewer parts to walk). */
    private static List<Part> merge(List<Part> parts) {
        List<Part> out = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (Part p : parts) {
            if (p instanceof Text t) {
                text.append(t.text());
            } else {
                if (!text.isEmpty()) {
                    out.add(new Text(text.toString()));
                    text.setLength(0);
                }
                out.add(p);
            }
        }
        if (!text.isEmpty()) {
            out.add(new Text(text.toString()));
        }
        return out;
    }
}
