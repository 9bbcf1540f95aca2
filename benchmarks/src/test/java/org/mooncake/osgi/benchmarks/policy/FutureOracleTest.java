package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;

class FutureOracleTest {
    private static final long SIZE = 256 << 10; // four fill the 1 MiB store; the fourth starts a round
    private static final long STORE = 1 << 20;

    private static Access kv(String key, double cost) {
        return new Access(key, ObjectDataType.KVCACHE, SIZE, cost, cost, "s", -1, false);
    }

    private static Access hidden(String key, double cost) {
        return new Access(key, ObjectDataType.HIDDEN_STATE, SIZE, cost, cost, "s", -1, false);
    }

    /** One access per request, 2 s apart: every lease (1 s) has ended by the next round. */
    private static Workload spaced(Access... accesses) {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < accesses.length; i++) {
            requests.add(new Request(2_000L * i, List.of(accesses[i])));
        }
        return Workload.of("handmade", requests);
    }

    /** Which accesses hit, in order. */
    private static List<Boolean> hits(Workload w, FutureOracle.Knowledge knowledge) {
        List<Boolean> hits = new ArrayList<>();
        FutureOracle oracle = new FutureOracle(w, knowledge);
        Simulation.run(w, oracle, Simulation.Settings.of(STORE), (a, hit, t) -> {
            oracle.accessed(a, hit, t);
            hits.add(hit);
        });
        return hits;
    }

    private static List<Boolean> hits(Workload w, String policy) {
        List<Boolean> hits = new ArrayList<>();
        Simulation.run(w, BenchPolicies.make(policy), Simulation.Settings.of(STORE), (a, hit, t) -> hits.add(hit));
        return hits;
    }

    @Test
    void itCountsTheAccessesUntilAKeysNextReadAfterTheOneServed() {
        Workload w = spaced(kv("a", 1), kv("b", 1), kv("a", 1), kv("c", 1), kv("a", 1));
        FutureOracle oracle = new FutureOracle(w, FutureOracle.Knowledge.EVERYTHING);
        assertEquals(1, oracle.untilNextRead("a"), "before the first access, a is next");
        oracle.accessed(null, false, 0);
        assertEquals(2, oracle.untilNextRead("a"), "a served at 0 is read next at 2");
        assertEquals(1, oracle.untilNextRead("b"));
        assertEquals(3, oracle.untilNextRead("c"));
        oracle.accessed(null, false, 0);
        oracle.accessed(null, false, 0);
        assertEquals(2, oracle.untilNextRead("a"), "served at 2, next at 4");
        assertEquals(Integer.MAX_VALUE, oracle.untilNextRead("b"), "b is never read again");
        assertEquals(Integer.MAX_VALUE, oracle.untilNextRead("unknown"));
    }

    @Test
    void knowingEverythingItDropsWhatIsNeverReadAgainWhereTheLeaseOrderDropsTheOldest() {
        // the fourth write fills the store; its round must free one: b is never read again
        Workload w = spaced(kv("a", 1), kv("b", 1), kv("c", 1), kv("d", 1), kv("a", 1), kv("c", 1), kv("d", 1));

        assertEquals(List.of(false, false, false, false, true, true, true), hits(w, FutureOracle.Knowledge.EVERYTHING));
        assertFalse(hits(w, BenchPolicies.DEFAULT).get(4), "the lease order drops a, the oldest: the comparison is real");
    }

    @Test
    void knowingHiddenReuseItDropsHiddenStatesNeverReadAgainFirstAndThoseReadAgainLast() {
        // h1 is cheap and read again; h2 is dear and never read again; cost-aware alone keeps h2 and drops h1
        Workload w = spaced(hidden("h1", 0.001), hidden("h2", 1_000), kv("k1", 100), kv("k2", 100), kv("k3", 100),
                hidden("h1", 0.001));

        List<Boolean> oracle = hits(w, FutureOracle.Knowledge.HIDDEN_REUSE);
        assertTrue(oracle.getLast(), "two rounds ran (after k2 and k3); h1 outlived both, and the KV went before it");
        assertFalse(hits(w, BenchPolicies.COST_AWARE).getLast(), "cost-aware alone drops the cheap h1 first");
    }

    @Test
    void knowingEverythingItDropsAValueThatIsRemovedBeforeItsNextRead() {
        // d's round must drop one: a is read soonest, but only after a remove, so its value is worth nothing;
        // not knowing of the remove, the oracle would drop d, read last
        Access removeA = new Access("a", ObjectDataType.KVCACHE, SIZE, 1, 1, "s", -1, false, false,
                org.mooncake.osgi.store.api.ObjectKey.DEFAULT_TENANT, Access.Op.REMOVE);
        Workload w = spaced(kv("a", 1), kv("b", 1), kv("c", 1), kv("d", 1), removeA, kv("a", 1), kv("b", 1), kv("c", 1),
                kv("d", 1));
        FutureOracle oracle = new FutureOracle(w, FutureOracle.Knowledge.EVERYTHING);
        List<Boolean> hits = new ArrayList<>();
        Simulation.run(w, oracle, Simulation.Settings.of(STORE), new Simulation.AccessObserver() {
            @Override
            public void accessed(Access a, boolean hit, long timeMs) {
                oracle.accessed(a, hit, timeMs);
                hits.add(hit);
            }

            @Override
            public void changed(Access a, long timeMs) {
                oracle.changed(a, timeMs);
            }
        });

        assertEquals(List.of(false, false, false, false, false, true, true, true), hits, "a went; b, c and d stayed");
    }
}
