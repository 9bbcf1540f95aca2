package org.mooncake.osgi.benchmarks.policy;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.store.api.ObjectDataType;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Replays a trace in the Mooncake FAST'25 format: one JSON object per line with
 * {@code timestamp} (ms), {@code input_length}, {@code output_length} and {@code hash_ids}
 * (prefix-chained ids of 512-token blocks). Each request reads its blocks in order; a block is a
 * KV object of 512 tokens x 57,344 B x scale costing 0.08 ms per token.
 *
 * <p>With {@code withHidden}, hidden states are synthesised for image requests, since the trace
 * has no multimodal fields: a conversation (requests sharing their first two blocks) carries an
 * image with probability 0.3; 20% of images come from a public pool; sizes and costs as in
 * seed600; every request of the conversation reads it first.
 */
public final class TraceWorkload {
    static final int BLOCK_TOKENS = 512;

    private TraceWorkload() {
    }

    public static Workload read(Path trace, double scale, boolean withHidden, long seed) throws IOException {
        // a line is one object: text after it, or a key given twice, is a broken line, not ignored
        ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        long kvBytes = SessionWorkload.roundUp(BLOCK_TOKENS * 57_344 * scale, 512);
        double kvCost = 0.08 * BLOCK_TOKENS;
        List<Request> requests = new ArrayList<>();
        int lineNo = 0;
        try (BufferedReader in = Files.newBufferedReader(trace)) {
            for (String line; (line = in.readLine()) != null;) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n;
                try {
                    n = json.readTree(line);
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IOException(trace + ":" + lineNo + ": not JSON: " + e.getOriginalMessage(), e);
                }
                JsonNode ids = n.get("hash_ids");
                JsonNode ts = n.get("timestamp");
                if (ids == null || !ids.isArray() || ts == null || !ts.isNumber()) {
                    throw new IOException(trace + ":" + lineNo + ": needs a numeric timestamp and a hash_ids array");
                }
                for (int i = 0; i < ids.size(); i++) {
                    if (!ids.get(i).isIntegralNumber() && !ids.get(i).isTextual()) { // an object would read as "" and join every other
                        throw new IOException(trace + ":" + lineNo + ": hash_ids[" + i + "] is not a block id (a whole number), was "
                                + ids.get(i));
                    }
                }
                List<Access> accesses = new ArrayList<>();
                String conversation = ids.size() > 1 ? ids.get(0).asText() + "-" + ids.get(1).asText()
                        : ids.isEmpty() ? "none" : ids.get(0).asText();
                if (withHidden && ids.size() > 1) {
                    Access image = imageOf(conversation, scale, seed);
                    if (image != null) {
                        accesses.add(image);
                    }
                }
                for (int i = 0; i < ids.size(); i++) {
                    accesses.add(new Access("kv-" + ids.get(i).asText(), ObjectDataType.KVCACHE, kvBytes, kvCost, kvCost,
                            conversation, i, false));
                }
                requests.add(new Request(ts.asLong(), accesses));
            }
        }
        if (requests.isEmpty()) {
            throw new IOException(trace + ": no requests (" + (lineNo == 0 ? "the file is empty" : lineNo + " lines, all blank") + ")");
        }
        String name = trace.getFileName().toString().replaceFirst("\\.jsonl$", "") + (withHidden ? "+hidden" : "-kv");
        return Workload.of(name, requests);
    }

    /** The image of a conversation, or null when it has none; decided by a hash, so every turn agrees. */
    private static Access imageOf(String conversation, double scale, long seed) {
        long h = mix(conversation.hashCode() * 0x9E3779B97F4A7C15L + seed);
        if (Math.floorMod(h, 10) >= 3) {
            return null;
        }
        boolean shared = Math.floorMod(h >>> 8, 5) == 0;
        int slot = (int) Math.floorMod(h >>> 16, 64);
        String key = shared ? "img-pub-" + slot : "img-" + conversation;
        int cls = (int) Math.floorMod(shared ? slot : h >>> 24, 4);
        double cost = SessionWorkload.IMAGE_COST_MS[cls];
        long size = SessionWorkload.roundUp(SessionWorkload.IMAGE_MIB[cls] * 1024 * 1024 * scale, 64);
        return new Access(key, ObjectDataType.HIDDEN_STATE, size, cost, cost, conversation, -1, false, !shared);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
