package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class EvidenceTest {
    /** What a correct disaggregated one-image request moves on each process. */
    private static Map<Role, Metrics> oneImage(boolean prefillHit) {
        Map<Role, Metrics> d = new EnumMap<>(Role.class);
        d.put(Role.ENCODER, Metrics.parse("""
                mooncake_epd_hidden_state_transfers_total{op="put",outcome="ok"} 1
                mooncake_epd_hidden_state_lookups_total{outcome="miss"} 1
                mooncake_epd_hidden_state_bytes_total{op="put"} 1048880
                mooncake_epd_worker_encoder_passes_total{model="mooncake-vl@r1"} 1
                """));
        d.put(Role.PREFILL, Metrics.parse((prefillHit ? "mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"} 1\n" : "")
                + """
                mooncake_epd_hidden_state_transfers_total{op="get",outcome="ok"} 1
                mooncake_epd_hidden_state_bytes_total{op="get"} 1048880
                mooncake_epd_kv_transfers_total{op="put",outcome="ok"} 3
                mooncake_client_transfer_bytes_total{protocol="tcp",op="get"} 1048880
                mooncake_client_transfer_bytes_total{protocol="tcp",op="put"} 600000
                mooncake_epd_worker_prefill_tokens_total{model="mooncake-vl@r1"} 280
                """));
        d.put(Role.DECODE, Metrics.parse("""
                mooncake_epd_kv_transfers_total{op="get",outcome="ok"} 3
                mooncake_client_transfer_bytes_total{protocol="tcp",op="get"} 600000
                mooncake_epd_worker_decode_tokens_total{model="mooncake-vl@r1"} 23
                """));
        return d;
    }

    private static List<Expectation.Outcome> check(Map<Role, Metrics> deltas, List<Expectation> evidence) {
        return evidence.stream().map(e -> e.check(deltas)).toList();
    }

    @Test
    void aCorrectDisaggregatedRequestMeetsEveryExpectation() {
        List<Expectation.Outcome> o = check(oneImage(true), Evidence.disaggregated(1, 0, 1 << 20, 1 << 20));
        assertTrue(o.stream().allMatch(Expectation.Outcome::ok),
                o.stream().filter(x -> !x.ok()).map(Expectation.Outcome::message).toList().toString());
    }

    @Test
    void aMissingPrefillHitFailsNamingTheProcessTheCounterAndBothValues() {
        List<Expectation.Outcome> failed = check(oneImage(false), Evidence.disaggregated(1, 0, 1 << 20, 1 << 20))
                .stream().filter(x -> !x.ok()).toList();
        assertEquals(1, failed.size(), failed.toString());
        assertEquals("prefill mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"} expected == 1, actual 0"
                + " (the prefill's scheduler finds every item's hidden state in the store)", failed.getFirst().message());
    }

    @Test
    void aRepeatedItemMustNotBeEncodedOrSavedAgain() {
        // the one-image deltas again: the encoder encoded and saved, which a repeat must not do
        List<String> failed = check(oneImage(true), Evidence.disaggregated(0, 1, 0, 1 << 20)).stream()
                .filter(x -> !x.ok()).map(Expectation.Outcome::message).toList();
        assertTrue(failed.contains("encoder mooncake_epd_hidden_state_transfers_total{op=\"put\",outcome=\"ok\"} expected"
                + " == 0, actual 1 (the encoder saves each new item's hidden state once)"), failed.toString());
        assertTrue(failed.stream().anyMatch(f -> f.startsWith("encoder mooncake_epd_worker_encoder_passes_total expected == 0")),
                failed.toString());
        assertTrue(failed.stream().anyMatch(f -> f.startsWith(
                "encoder mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"} expected == 1, actual 0")), failed.toString());
    }

    @Test
    void aDecodeThatComputedThePromptFails() {
        Map<Role, Metrics> d = oneImage(true);
        d.put(Role.DECODE, Metrics.parse("""
                mooncake_epd_worker_prefill_tokens_total{model="mooncake-vl@r1"} 280
                mooncake_client_transfer_bytes_total{protocol="tcp",op="get"} 1
                """));
        List<String> failed = check(d, Evidence.disaggregated(1, 0, 1 << 20, 1 << 20)).stream()
                .filter(x -> !x.ok()).map(Expectation.Outcome::message).toList();
        assertEquals(List.of("decode mooncake_epd_worker_prefill_tokens_total expected == 0, actual 280 (the decode worker"
                + " computes no prompt token: it loads their KV)", "decode mooncake_epd_kv_transfers_total{op=\"get\","
                + "outcome=\"ok\"} expected >= 1, actual 0 (the decode loads the prompt's KV)"), failed);
    }

    @Test
    void atLeastAcceptsMoreAndRefusesLess() {
        Expectation e = Evidence.atLeast(Role.PREFILL, "b_total", Map.of(), 10, "why");
        assertTrue(e.check(Map.of(Role.PREFILL, Metrics.parse("b_total 11\n"))).ok());
        assertTrue(e.check(Map.of(Role.PREFILL, Metrics.parse("b_total 10\n"))).ok());
        assertFalse(e.check(Map.of(Role.PREFILL, Metrics.parse("b_total 9.5\n"))).ok());
        assertFalse(e.check(Map.of()).ok(), "a process not scraped counts as all zero");
        assertEquals("prefill b_total expected >= 10, actual 9.500 (why)",
                e.check(Map.of(Role.PREFILL, Metrics.parse("b_total 9.5\n"))).message());
    }
}
