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
            for (String p : new String[] {BenchPolicies.DEFAULT, BenchPolicies.BALANCED}) {
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
    }
}
