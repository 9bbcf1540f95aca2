package org.mooncake.osgi.epd.demo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The fakes' "model": a deterministic printable answer from the model id and the messages. */
final class FakeAnswers {
    static final ObjectMapper JSON = new ObjectMapper();

    private FakeAnswers() {
    }

    static String answer(JsonNode request, boolean wrong) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(request.path("model").asText().getBytes(StandardCharsets.UTF_8));
            d.update(request.path("messages").toString().getBytes(StandardCharsets.UTF_8));
            byte[] h = d.digest();
            int n = Math.min(request.path("max_tokens").asInt(16), 12);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < n; i++) {
                b.append((char) ('a' + Math.floorMod(h[i] + (wrong ? 1 : 0), 26)));
            }
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String completion(String content, String finish) {
        ObjectNode c = JSON.createObjectNode().put("id", "chatcmpl-fake").put("object", "chat.completion");
        ObjectNode choice = c.putArray("choices").addObject();
        choice.putObject("message").put("role", "assistant").put("content", content);
        choice.put("finish_reason", finish);
        return c.toString();
    }

    /** SSE: a role chunk, one chunk per character, a finish chunk, [DONE]. */
    static String sse(String content) {
        StringBuilder b = new StringBuilder();
        b.append("data: ").append(chunk(null, "assistant", null)).append("\n\n");
        for (char ch : content.toCharArray()) {
            b.append("data: ").append(chunk(String.valueOf(ch), null, null)).append("\n\n");
        }
        b.append("data: ").append(chunk(null, null, "length")).append("\n\n");
        return b.append("data: [DONE]\n\n").toString();
    }

    private static String chunk(String content, String role, String finish) {
        ObjectNode c = JSON.createObjectNode().put("object", "chat.completion.chunk");
        ObjectNode choice = c.putArray("choices").addObject();
        ObjectNode delta = choice.putObject("delta");
        if (role != null) {
            delta.put("role", role);
        }
        if (content != null) {
            delta.put("content", content);
        }
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return c.toString();
    }
}
