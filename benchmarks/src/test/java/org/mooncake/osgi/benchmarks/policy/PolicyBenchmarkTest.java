package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The command end to end on a small seed600: what it writes, with and without the oracles and the hints. */
class PolicyBenchmarkTest {
    private static JsonNode run(Path out, String... extra) throws Exception {
        String[] base = {"--sessions", "40", "--seeds", "1", "--capacities", "0.1", "--workloads", "seed600", "--threads",
                "2", "--out", out.toString()};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        PolicyBenchmark.main(args);
        return new ObjectMapper().readTree(out.resolve("policies.json").toFile());
    }

    /** Saving per (group, policy) of the runs in {@code doc}. */
    private static Map<String, Double> savings(JsonNode doc) {
        Map<String, Double> out = new HashMap<>();
        doc.get("runs").forEach(r -> out.put(r.get("group").asText() + " " + r.get("policy").asText(),
                r.get("saving_rate_non_compulsory").asDouble()));
        return out;
    }

    @Test
    void itRunsThePoliciesBesideTheOraclesAndWithoutHintsOnlyCostAwareMoves(@TempDir Path dir) throws Exception {
        JsonNode hinted = run(dir.resolve("hinted"));
        JsonNode plain = run(dir.resolve("plain"), "--no-oracles", "--no-group-only-hints");

        Map<String, Double> a = savings(hinted);
        Map<String, Double> b = savings(plain);
        for (String mode : new String[] {"seed40-session", "seed40-full_history"}) {
            for (String oracle : BenchPolicies.ORACLES) {
                assertTrue(a.containsKey(mode + " " + oracle), oracle + " ran on " + mode);
                assertFalse(b.containsKey(mode + " " + oracle), "--no-oracles left " + oracle + " out");
            }
            for (String p : new String[] {BenchPolicies.DEFAULT, BenchPolicies.BALANCED, BenchPolicies.W_TINYLFU}) {
                assertEquals(a.get(mode + " " + p), b.get(mode + " " + p), p + " does not read the hint");
            }
        }
        assertTrue(hinted.at("/options/group_only_hints").asBoolean());
        assertFalse(plain.at("/options/group_only_hints").asBoolean());
        JsonNode goal = hinted.at("/goals/calibration_points/0");
        assertTrue(goal.has("oracle_hidden") && goal.has("oracle_future"), goal.toString());
        assertFalse(plain.at("/goals/calibration_points/0").has("oracle_hidden"));
        assertTrue(Files.readString(dir.resolve("hinted/policies.md")).contains("oracle-future (knows the future)"));
        assertTrue(Files.size(dir.resolve("hinted/policies-seed40-session-saving.png")) > 0);
        // what cost-aware learned is kept with each of its runs, and what it made of the hint reported
        for (JsonNode r : hinted.get("runs")) {
            if (r.get("policy").asText().equals(BenchPolicies.COST_AWARE)) {
                assertTrue(r.at("/learned/learned_events").asDouble() > 0, r.toString());
                assertTrue(r.at("/learned/group_end_ms").asDouble() > 0, r.toString());
            } else if (r.get("policy").asText().equals(BenchPolicies.DEFAULT)) {
                assertFalse(r.has("learned"), "lease order learns nothing");
            }
        }
        assertFalse(Files.readString(dir.resolve("plain/policies.md")).contains("What cost-aware learned"), "no hint, no table");
    }

    /** With enough sessions for the check to judge, seed600's honest hints are followed, and the report says so. */
    @Test
    void honestHintsAreFollowedAndTheReportShowsWhatWasLearned(@TempDir Path dir) throws Exception {
        JsonNode doc = run(dir, "--sessions", "200", "--no-oracles");
        JsonNode fullHistory = null;
        for (JsonNode r : doc.get("runs")) {
            if (r.get("policy").asText().equals(BenchPolicies.COST_AWARE) && r.get("group").asText().equals("seed200-full_history")) {
                fullHistory = r;
            }
        }
        assertTrue(fullHistory != null && fullHistory.at("/learned/group_only_read_again_share").asDouble(1) < 0.1,
                String.valueOf(fullHistory));
        assertEquals(1.0, fullHistory.at("/learned/group_only_hint_followed").asDouble());
        String md = Files.readString(dir.resolve("policies.md"));
        long end = Math.round(fullHistory.at("/learned/group_end_ms").asDouble());
        String share = String.format(java.util.Locale.ROOT, "%.1f%%", 100 * fullHistory.at("/learned/group_only_read_again_share").asDouble());
        assertTrue(md.contains("| seed200-full_history | 10% | " + end + " | " + share + " | 1 of 1 |"), md);
    }
}
