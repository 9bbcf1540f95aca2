package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code bench policies --access-log} end to end on the example the docs ship. */
class AccessLogReplayTest {
    static final Path EXAMPLE = Path.of("../docs/examples/access-log.jsonl");

    @Test
    void theExampleIsReplayedAgainstEveryPolicyTheOraclesAndTheBounds(@TempDir Path out) throws Exception {
        PolicyBenchmark.main(new String[] {"--access-log", EXAMPLE.toString(), "--capacities", "0.2,0.4", "--threads", "2",
                "--out", out.toString()});

        JsonNode doc = new ObjectMapper().readTree(out.resolve("policies.json").toFile());
        assertEquals(EXAMPLE.toString(), doc.at("/options/access_log").asText());
        assertEquals(1, doc.get("workloads").size(), "the log alone: no seed600, trace or adversarial runs");
        Set<String> ran = new HashSet<>();
        for (JsonNode r : doc.get("runs")) {
            assertEquals("log-access-log", r.get("workload").asText());
            ran.add(r.get("policy").asText() + " " + r.get("capacity_fraction").asDouble());
            assertEquals(5, r.get("puts").asLong(), "four uploads and a new system prompt");
            assertEquals(1, r.get("removes").asLong());
            double saving = r.get("saving_rate_non_compulsory").asDouble();
            double bound = r.get("foo_l_saving_non_compulsory").asDouble();
            assertTrue(saving <= bound + 1e-9, "FOO-L bounds every run: " + r);
            if (BenchPolicies.ALL.contains(r.get("policy").asText())) {
                assertTrue(saving > 0, "every policy keeps something: " + r);
            }
            assertTrue(bound <= r.get("pfoo_l_saving_non_compulsory").asDouble() + 1e-9, r.toString());
        }
        for (double cap : new double[] {0.2, 0.4}) {
            for (String p : BenchPolicies.ALL) {
                assertTrue(ran.contains(p + " " + cap), p + " at " + cap);
            }
            for (String o : BenchPolicies.ORACLES) {
                assertTrue(ran.contains(o + " " + cap), o + " at " + cap);
            }
        }
        String md = Files.readString(out.resolve("policies.md"));
        assertTrue(md.contains("### Access log log-access-log"), md);
        assertTrue(md.contains("| 20% | FOO-L bound |") && md.contains("| 40% | PFOO-L bound |"), md);
        assertTrue(md.contains("Most saved (nc) among the policies, by capacity: 20%: "), md);
        assertFalse(md.contains("### Workloads (seed 1)"), "no generated workload to describe");
        assertTrue(Files.size(out.resolve("policies-log-access-log-saving.png")) > 0);
    }
}
