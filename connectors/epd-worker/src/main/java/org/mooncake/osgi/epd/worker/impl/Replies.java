package org.mooncake.osgi.epd.worker.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The OpenAI-shaped JSON a worker answers: completions, stream chunks, model lists, errors. */
final class Replies {
    static final ObjectMapper JSON = new ObjectMapper();

    private Replies() {
    }

    static ObjectNode completion(String id, String model, String content, String finishReason, int promptTokens,
            int completionTokens) {
        ObjectNode c = JSON.createObjectNode();
        c.put("id", id).put("object", "chat.completion").put("created", System.currentTimeMillis() / 1000)
                .put("model", model);
        ObjectNode choice = c.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", content);
        choice.put("finish_reason", finishReason);
        c.putObject("usage").put("prompt_tokens", promptTokens).put("completion_tokens", completionTokens)
                .put("total_tokens", promptTokens + completionTokens);
        return c;
    }

    /** A stream chunk: the role first, then content deltas, then the finish reason with an empty delta. */
    static ObjectNode chunk(String id, String model, String role, String content, String finishReason) {
        ObjectNode c = JSON.createObjectNode();
        c.put("id", id).put("object", "chat.completion.chunk").put("created", System.currentTimeMillis() / 1000)
                .put("model", model);
        ObjectNode choice = c.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode delta = choice.putObject("delta");
        if (role != null) {
            delta.put("role", role);
        }
        if (content != null) {
            delta.put("content", content);
        }
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return c;
    }

    static ObjectNode models(Iterable<ServedModel> served) {
        ObjectNode list = JSON.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (ServedModel m : served) {
            data.addObject().put("id", m.id()).put("object", "model").put("owned_by", "mooncake-osgi")
                    .put("root", m.name()).put("revision", m.revision()).put("size", m.config().name());
        }
        return list;
    }

    static ObjectNode error(ApiError e) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("message", e.getMessage()).put("type", e.type);
        if (e.param == null) {
            error.putNull("param");
        } else {
            error.put("param", e.param);
        }
        error.put("code", e.code);
        return body;
    }
}
