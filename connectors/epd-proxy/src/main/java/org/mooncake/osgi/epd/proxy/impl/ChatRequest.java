package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.mooncake.osgi.epd.api.MediaIds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A client's chat request, checked, with every media part given its content-derived
 * {@code uuid} ({@link MediaIds#of}), and the three stage requests made from it. The proxy
 * always sets the uuid itself, replacing one the client sent: the uuid is a cache key shared by
 * every user, so a client must not be able to name another item's hidden state.
 *
 * <p>Only the parsing thread mutates {@link #root}; the stage builders copy it.
 */
final class ChatRequest {
    static final String TEXT = "text";
    static final Set<String> MEDIA_TYPES = Set.of("image_url", "video_url");

    /** One media part of the request, in order of appearance across all messages. */
    record MediaItem(int index, String type, String url, String uuid, ObjectNode part) {
    }

    final ObjectNode root;
    final String model;
    final boolean stream;
    final List<MediaItem> media;

    private ChatRequest(ObjectNode root, String model, boolean stream, List<MediaItem> media) {
        this.root = root;
        this.model = model;
        this.stream = stream;
        this.media = List.copyOf(media);
    }

    /** Parses and checks {@code body}; a {@link ProxyError} (400) says what is wrong, and where. */
    static ChatRequest parse(byte[] body) {
        JsonNode tree;
        try {
            tree = Json.read(body);
        } catch (IOException e) {
            throw ProxyError.badRequest("request body is not valid JSON: " + firstLine(e.getMessage()), null,
                    "invalid_json");
        }
        if (tree == null || !tree.isObject()) {
            throw ProxyError.badRequest("request body must be a JSON object", null, "invalid_json");
        }
        ObjectNode root = (ObjectNode) tree;
        JsonNode model = root.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw ProxyError.badRequest("'model' is required and must be a non-empty string", "model",
                    "missing_required_parameter");
        }
        JsonNode stream = root.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw ProxyError.badRequest("'stream' must be a boolean", "stream", "invalid_type");
        }
        JsonNode messages = root.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ProxyError.badRequest("'messages' is required and must be a non-empty array", "messages",
                    messages == null ? "missing_required_parameter" : "invalid_value");
        }
        List<MediaItem> media = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String at = "messages[" + i + "]";
            if (!message.isObject()) {
                throw ProxyError.badRequest(at + " must be an object", at, "invalid_type");
            }
            JsonNode content = message.get("content");
            if (content == null || content.isNull() || content.isTextual()) {
                continue;
            }
            if (!content.isArray()) {
                throw ProxyError.badRequest(at + ".content must be a string or an array of parts", at + ".content",
                        "invalid_type");
            }
            for (int j = 0; j < content.size(); j++) {
                JsonNode part = content.get(j);
                String pat = at + ".content[" + j + "]";
                if (!part.isObject() || !part.path("type").isTextual()) {
                    throw ProxyError.badRequest(pat + " must be an object with a string 'type'", pat, "invalid_type");
                }
                String type = part.get("type").asText();
                if (TEXT.equals(type)) {
                    continue;
                }
                if (!MEDIA_TYPES.contains(type)) {
                    throw ProxyError.badRequest("content part type '" + type + "' is not supported (supported: text, "
                            + "image_url, video_url)", pat + ".type", "unsupported_content_part");
                }
                JsonNode url = part.path(type).path("url");
                if (!url.isTextual() || url.asText().isBlank()) {
                    throw ProxyError.badRequest(pat + "." + type + ".url is required", pat + "." + type + ".url",
                            "missing_required_parameter");
                }
                String uuid;
                try {
                    uuid = MediaIds.of(url.asText());
                } catch (IllegalArgumentException e) {
                    throw ProxyError.badRequest(pat + "." + type + ".url: " + e.getMessage(), pat + "." + type + ".url",
                            "invalid_value");
                }
                ((ObjectNode) part).put("uuid", uuid);
                media.add(new MediaItem(media.size(), type, url.asText(), uuid, (ObjectNode) part));
            }
        }
        return new ChatRequest(root, model.asText(), stream != null && stream.asBoolean(), media);
    }

    /** The encoder's child request for {@code item}: that part alone, one token, not streamed. */
    ObjectNode encodeRequest(MediaItem item) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("model", model);
        ArrayNode messages = r.putArray("messages");
        ObjectNode user = messages.addObject();
        user.put("role", "user");
        user.putArray("content").add(item.part().deepCopy());
        r.put("max_tokens", 1);
        r.put("stream", false);
        return r;
    }

    /**
     * The prefill request: the client's request (uuids in place) computing one token, not
     * streamed, asking for its KV cache to be kept for a remote decode. {@code stream_options}
     * goes (workers refuse it without {@code stream}); {@code max_completion_tokens}, which
     * workers prefer over {@code max_tokens}, is set to 1 as well when present.
     */
    ObjectNode prefillRequest() {
        ObjectNode r = root.deepCopy();
        r.put("max_tokens", 1);
        if (r.has("max_completion_tokens")) {
            r.put("max_completion_tokens", 1);
        }
        r.put("stream", false);
        r.remove("stream_options");
        ObjectNode kv = r.putObject("kv_transfer_params");
        kv.put("do_remote_decode", true);
        kv.put("do_remote_prefill", false);
        return r;
    }

    /** The decode request: the client's request (uuids in place) with the prefill's {@code kv_transfer_params}, untouched. */
    ObjectNode decodeRequest(JsonNode kvTransferParams) {
        ObjectNode r = root.deepCopy();
        r.set("kv_transfer_params", kvTransferParams.deepCopy());
        return r;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
