package org.mooncake.osgi.epd.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the counters must show for one disaggregated request, from what the request carries: its
 * media items new to the store ({@code fresh}) and those already in it ({@code stored}), with
 * their hidden-state bytes. Hidden states: the encoder saves each new item once and runs the
 * vision encoder only for those, finds the stored ones; the prefill finds and loads every item,
 * misses none and encodes nothing. KV: the prefill saves blocks, the decode loads them and
 * computes no prompt token itself.
 */
public final class Evidence {
    static final String HS = "mooncake_epd_hidden_state_";
    static final String KV = "mooncake_epd_kv_";
    static final String WORKER = "mooncake_epd_worker_";
    static final String CLIENT_BYTES = "mooncake_client_transfer_bytes_total";

    private Evidence() {
    }

    public static List<Expectation> disaggregated(int fresh, int stored, long freshBytes, long allBytes) {
        int items = fresh + stored;
        List<Expectation> e = new ArrayList<>();
        e.add(eq(Role.ENCODER, HS + "transfers_total", Map.of("op", "put", "outcome", "ok"), fresh,
                "the encoder saves each new item's hidden state once"));
        e.add(eq(Role.ENCODER, WORKER + "encoder_passes_total", Map.of(), fresh,
                "the encoder runs only for items not in the store"));
        e.add(eq(Role.ENCODER, HS + "lookups_total", Map.of("outcome", "hit"), stored, stored > 0
                ? "the encoder finds the stored item and does not encode it again"
                : "nothing of this request is in the store under this model's keys"));
        if (freshBytes > 0) {
            e.add(atLeast(Role.ENCODER, HS + "bytes_total", Map.of("op", "put"), freshBytes,
                    "the new items' hidden states went into the store"));
        }
        e.add(eq(Role.PREFILL, HS + "lookups_total", Map.of("outcome", "hit"), items,
                "the prefill's scheduler finds every item's hidden state in the store"));
        e.add(eq(Role.PREFILL, HS + "transfers_total", Map.of("op", "get", "outcome", "ok"), items,
                "the prefill loads every item's hidden state"));
        e.add(eq(Role.PREFILL, HS + "lookups_total", Map.of("outcome", "miss"), 0, "no item is missing"));
        if (allBytes > 0) {
            e.add(atLeast(Role.PREFILL, HS + "bytes_total", Map.of("op", "get"), allBytes,
                    "the hidden states came out of the store"));
        }
        e.add(eq(Role.PREFILL, WORKER + "encoder_passes_total", Map.of(), 0, "the prefill worker never encodes"));
        e.add(atLeast(Role.PREFILL, KV + "transfers_total", Map.of("op", "put", "outcome", "ok"), 1,
                "the prefill saves the prompt's KV"));
        e.add(atLeast(Role.PREFILL, CLIENT_BYTES, Map.of(), Math.max(1, allBytes),
                "the prefill's store client moved the hidden states and the KV"));
        e.add(eq(Role.DECODE, WORKER + "prefill_tokens_total", Map.of(), 0,
                "the decode worker computes no prompt token: it loads their KV"));
        e.add(atLeast(Role.DECODE, KV + "transfers_total", Map.of("op", "get", "outcome", "ok"), 1,
                "the decode loads the prompt's KV"));
        e.add(atLeast(Role.DECODE, CLIENT_BYTES, Map.of(), 1, "the decode's store client moved the KV"));
        return e;
    }

    static Expectation eq(Role role, String metric, Map<String, String> labels, double value, String why) {
        return new Expectation(role, metric, labels, Expectation.Op.EQ, value, why);
    }

    static Expectation atLeast(Role role, String metric, Map<String, String> labels, double value, String why) {
        return new Expectation(role, metric, labels, Expectation.Op.AT_LEAST, value, why);
    }
}
