package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The matrix against fake processes whose counters move as the real connectors' do, or not quite. */
class CaseRunnerTest {
    private static final DemoHttp HTTP = new DemoHttp(Duration.ofSeconds(30));

    private static List<CaseResult> runMatrix(Set<String> faults, DemoOptions.Mode mode) throws Exception {
        try (FakeCluster cluster = new FakeCluster(faults)) {
            CaseRunner runner = new CaseRunner(cluster, HTTP, mode, Duration.ofMillis(200));
            List<CaseResult> results = new ArrayList<>();
            for (DemoCase c : CaseMatrix.cases(ModelSize.TINY)) {
                results.add(runner.run(c));
            }
            return results;
        }
    }

    @Test
    void aCorrectClusterPassesEveryCaseWithEqualAnswers() throws Exception {
        List<CaseResult> results = runMatrix(Set.of(), DemoOptions.Mode.BOTH);
        assertEquals(List.of("text only", "one image", "three images", "repeated image", "streaming", "video (8 frames)",
                "two revisions"), results.stream().map(CaseResult::name).toList());
        for (CaseResult r : results) {
            assertTrue(r.passed(), r.failures().toString());
            assertEquals(r.steps().size(), r.exact());
        }
        StepResult repeated = results.get(3).steps().getFirst();
        assertEquals(1, repeated.delta(Role.ENCODER, Evidence.HS + "lookups_total", "outcome", "hit"));
        assertEquals(0, repeated.delta(Role.ENCODER, Evidence.WORKER + "encoder_passes_total"));
        StepResult streamed = results.get(4).steps().getFirst();
        assertTrue(streamed.epd().chunks().size() > 1, "relayed chunk by chunk");
        assertEquals(streamed.aggregated().content(), String.join("", streamed.epd().chunks()));
    }

    @Test
    void aMissingPrefillHitFailsTheCaseNamingTheCounter() throws Exception {
        List<CaseResult> results = runMatrix(Set.of("no-prefill-hit"), DemoOptions.Mode.BOTH);
        assertTrue(results.getFirst().passed(), "text only asks the prefill for nothing");
        CaseResult one = results.get(1);
        assertEquals(List.of("case 'one image': prefill mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"} expected"
                + " == 1, actual 0 (the prefill's scheduler finds every item's hidden state in the store)"), one.failures());
        assertTrue(results.get(6).failures().getFirst().startsWith("case 'two revisions' (r1): prefill"),
                results.get(6).failures().toString());
    }

    @Test
    void anAnswerThatDiffersFromTheAggregatedOneFailsTheCase() throws Exception {
        List<CaseResult> results = runMatrix(Set.of("wrong-aggregated"), DemoOptions.Mode.BOTH);
        CaseResult one = results.get(1);
        assertEquals(Boolean.FALSE, one.steps().getFirst().exact());
        assertTrue(one.failures().getFirst().startsWith("case 'one image': the EPD answer differs from the aggregated"
                + " worker's: EPD \""), one.failures().toString());
    }

    @Test
    void oneModeRunsOnePathAndComparesNothing() throws Exception {
        for (CaseResult r : runMatrix(Set.of(), DemoOptions.Mode.AGGREGATED)) {
            assertTrue(r.passed(), r.failures().toString());
            assertEquals(0, r.compared());
            assertNull(r.steps().getFirst().epd());
            assertTrue(r.steps().getFirst().evidence().isEmpty(), "no EPD request, no evidence");
        }
        for (CaseResult r : runMatrix(Set.of(), DemoOptions.Mode.EPD)) {
            assertTrue(r.passed(), r.failures().toString());
            assertNull(r.steps().getFirst().aggregated());
        }
    }
}
