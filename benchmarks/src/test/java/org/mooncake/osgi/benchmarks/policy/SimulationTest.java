package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.api.ObjectDataType;

/** The metadata-only mode the benchmark uses must decide exactly as a store that moves real bytes. */
class SimulationTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {BenchPolicies.DEFAULT, BenchPolicies.BALANCED, BenchPolicies.HIERARCHICAL, BenchPolicies.COST_AWARE,
            BenchPolicies.W_TINYLFU})
    void metadataOnlyAndRealBytesAgreeHitForHit(String policy) {
        Workload w = SessionWorkload.generate(40, 0.002, SessionWorkload.Mode.FULL_HISTORY, 7);
        long capacity = (long) (w.uniqueBytes() * 0.08) / 4096 * 4096;
        Simulation.Settings s = Simulation.Settings.of(capacity);
        RunResult meta = Simulation.run(w, BenchPolicies.make(policy), s);
        RunResult real = Simulation.run(w, BenchPolicies.make(policy), s.withRealBytes(true));
        assertTrue(meta.rounds > 0, "the capacity was never short: nothing was compared");
        for (ObjectDataType t : new ObjectDataType[] {ObjectDataType.KVCACHE, ObjectDataType.HIDDEN_STATE}) {
            assertEquals(meta.types.get(t).hits, real.types.get(t).hits, t + " hits");
            assertEquals(meta.types.get(t).accesses, real.types.get(t).accesses, t + " accesses");
        }
        assertEquals(meta.evictions, real.evictions, "evictions");
        assertEquals(meta.hitCost, real.hitCost, 1e-6);
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(doubles = {0.03, 0.10})
    void noPolicyBeatsTheOfflineBound(double fraction) {
        Workload w = SessionWorkload.generate(60, 0.002, SessionWorkload.Mode.SESSION, 3);
        long capacity = (long) (w.uniqueBytes() * fraction) / 4096 * 4096;
        OfflineBound bound = new OfflineBound(w);
        double foo = bound.fooL(capacity);
        assertTrue(bound.pfooL(capacity) >= foo - 1e-6);

        for (String p : BenchPolicies.ALL) {
            RunResult r = Simulation.run(w, BenchPolicies.make(p), Simulation.Settings.of(capacity));
            assertTrue(r.hitCost <= foo + 1e-6, p + " saved " + r.hitCost + " ms, more than FOO-L's " + foo);
            assertTrue(r.hitCost > 0, p + " saved nothing");
        }
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(doubles = {0.01, 0.03})
    void foosOwnPerAccessGraphIsAtLeastAsTightAndStillAboveEveryPolicy(double fraction) {
        Workload w = SessionWorkload.generate(12, 0.002, SessionWorkload.Mode.FULL_HISTORY, 5);
        long capacity = (long) (w.uniqueBytes() * fraction) / 4096 * 4096;
        double perRequest = new OfflineBound(w).fooL(capacity);
        double perAccess = new OfflineBound(w, true).fooL(capacity);
        assertTrue(perAccess <= perRequest + 1e-6, perAccess + " vs " + perRequest);
        for (String p : BenchPolicies.ALL) {
            RunResult r = Simulation.run(w, BenchPolicies.make(p), Simulation.Settings.of(capacity));
            assertTrue(r.hitCost <= perAccess + 1e-6, p + " saved " + r.hitCost + " ms, more than FOO-L's " + perAccess);
        }
    }
}
