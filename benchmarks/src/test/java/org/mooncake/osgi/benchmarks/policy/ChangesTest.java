package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/** An access log's puts and removes are real in the simulator and in the offline bound alike. */
class ChangesTest {
    private static final long K = 1 << 10;
    private static final long STORE = 1 << 20;

    private static Access op(Access.Op op, String key, ObjectDataType type, long size) {
        return new Access(key, type, size, 100, 100, "g", -1, false, false, ObjectKey.DEFAULT_TENANT, op);
    }

    private static Access get(String key, long size) {
        return op(Access.Op.GET, key, ObjectDataType.KVCACHE, size);
    }

    private static Access put(String key, long size) {
        return op(Access.Op.PUT, key, ObjectDataType.KVCACHE, size);
    }

    private static Access remove(String key) {
        return op(Access.Op.REMOVE, key, ObjectDataType.GENERAL, 0);
    }

    /** One operation a request, at the given times. */
    private static Workload at(long[] times, Access... ops) {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < ops.length; i++) {
            requests.add(new Request(times[i], List.of(ops[i])));
        }
        return Workload.of("changes", requests);
    }

    private static RunResult run(Workload w, String policy) {
        return Simulation.run(w, BenchPolicies.make(policy), Simulation.Settings.of(STORE));
    }

    private static long hits(RunResult r) {
        return r.types.values().stream().mapToLong(t -> t.hits).sum();
    }

    static List<String> policies() {
        return BenchPolicies.ALL;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aReadAfterARemoveMissesAndIsNoPolicysFaultNorInTheBound(String policy) {
        Workload kept = at(new long[] {0, 2_000, 4_000}, put("a", 256 * K), get("a", 256 * K), get("a", 256 * K));
        Workload removed = at(new long[] {0, 2_000, 3_000, 4_000}, put("a", 256 * K), get("a", 256 * K), remove("a"),
                get("a", 256 * K));

        RunResult r = run(kept, policy);
        assertEquals(2, hits(r));
        assertEquals(0, r.compulsoryCost);
        RunResult gone = run(removed, policy);
        assertEquals(1, hits(gone), "the key is gone");
        assertEquals(100, gone.compulsoryCost, 1e-9, "the miss counts as compulsory");
        assertEquals(1.0, gone.savingRateNonCompulsory(), 1e-9, "so the policy saved all it could");
        assertEquals(1, gone.removes);

        assertEquals(200, new OfflineBound(kept).fooL(STORE), 1e-6);
        assertEquals(100, new OfflineBound(removed).fooL(STORE), 1e-6, "no interval crosses a remove");
        assertEquals(100, new OfflineBound(removed).pfooL(STORE), 1e-6);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aRemoveFreesTheBytesSoALaterPutNeedsNoEviction(String policy) {
        long[] times = {0, 0, 2_000, 4_000, 6_000};
        Workload removed = at(times, put("a", 512 * K), put("b", 256 * K), remove("a"), put("c", 512 * K), get("b", 256 * K));
        Workload kept = at(times, put("a", 512 * K), put("b", 256 * K), get("x", 4 * K), put("c", 512 * K), get("b", 256 * K));

        RunResult r = run(removed, policy);
        assertEquals(0, r.evictions, "a's bytes were free for c");
        assertEquals(1, r.types.get(ObjectDataType.KVCACHE).hits, "b stayed");
        assertTrue(run(kept, policy).evictions > 0, "without the remove, c needs room: the comparison is real");
    }

    @Test
    void aRemovedValueThatAReadStillLeasesIsFreedWhenTheLeaseEnds() {
        // the read at 2000 leases a until 3000 (lease 1 s): its bytes are freed then, not at the remove
        Access big = put("c", 768 * K);
        Workload early = at(new long[] {0, 2_000, 2_000, 2_500}, put("a", 768 * K), get("a", 768 * K), remove("a"), big);
        Workload late = at(new long[] {0, 2_000, 2_000, 3_500}, put("a", 768 * K), get("a", 768 * K), remove("a"), big);

        assertEquals(1, run(early, BenchPolicies.DEFAULT).droppedPuts, "no room while the lease holds a's bytes");
        assertEquals(0, run(late, BenchPolicies.DEFAULT).droppedPuts);
    }

    @Test
    void anOverwriteReplacesSizeAndTypeAndFreesTheOldBytes() {
        Workload w = at(new long[] {0, 10, 20}, put("a", 256 * K), op(Access.Op.PUT, "a", ObjectDataType.HIDDEN_STATE, 512 * K),
                op(Access.Op.GET, "a", ObjectDataType.HIDDEN_STATE, 512 * K));
        RunResult r = run(w, BenchPolicies.DEFAULT);

        assertEquals(256 * K, r.types.get(ObjectDataType.KVCACHE).residentByteSamples, 1e-9,
                "the KV value was resident after the first request only");
        assertEquals(2 * 512 * K, r.types.get(ObjectDataType.HIDDEN_STATE).residentByteSamples, 1e-9,
                "the new value, at its size, after the second and third");
        assertEquals(1, r.types.get(ObjectDataType.HIDDEN_STATE).hits);
        assertEquals(2, r.puts);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aPutMakesTheNextReadHitAndAPutWithNoRoomDropsTheStaleValue(String policy) {
        Workload readOnly = at(new long[] {0, 2_000}, get("a", 256 * K), get("a", 256 * K));
        Workload put = at(new long[] {0, 2_000}, put("a", 256 * K), get("a", 256 * K));
        assertEquals(1, run(readOnly, policy).types.get(ObjectDataType.KVCACHE).compulsory);
        assertEquals(0, run(put, policy).types.get(ObjectDataType.KVCACHE).compulsory, "the put stored it");
        assertEquals(1, hits(run(put, policy)));

        Workload tooLarge = at(new long[] {0, 2_000, 4_000}, get("a", 256 * K), put("a", 2 * STORE), get("a", 2 * STORE));
        RunResult r = run(tooLarge, policy);
        assertEquals(1, r.droppedPuts);
        assertEquals(0, hits(r), "the old value must not serve a read after the writer replaced it");
        assertEquals(50, new OfflineBound(tooLarge).fooL(STORE), 1e-6,
                "the bound keeps the new value from the put, at its size: half of it fits, fractionally, not the old 256 KiB");
    }

    /** Metadata-only and real-bytes runs agree hit for hit with puts, overwrites and removes. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void metadataOnlyAndRealBytesAgreeWithChanges(String policy) {
        Random rnd = new Random(11);
        List<Request> requests = new ArrayList<>();
        java.util.Map<String, Long> sizes = new java.util.HashMap<>(); // a get reads the size last put
        for (int i = 0; i < 400; i++) {
            String key = "k" + rnd.nextInt(24);
            int dice = rnd.nextInt(10);
            if (dice >= 1 && dice < 3) {
                sizes.put(key, (64 + 64 * rnd.nextInt(4)) * K);
            }
            long size = sizes.computeIfAbsent(key, k -> 128 * K);
            Access a = dice == 0 ? remove(key) : dice < 3 ? put(key, size) : get(key, size);
            requests.add(new Request(150L * i, List.of(a)));
        }
        Workload w = Workload.of("random changes", requests);
        Simulation.Settings s = Simulation.Settings.of(STORE);
        RunResult meta = Simulation.run(w, BenchPolicies.make(policy), s);
        RunResult real = Simulation.run(w, BenchPolicies.make(policy), s.withRealBytes(true));
        assertTrue(meta.evictions > 0 && meta.removes > 0 && meta.puts > 0, "nothing was compared");
        assertEquals(hits(meta), hits(real));
        assertEquals(meta.evictions, real.evictions);
        assertEquals(meta.droppedPuts, real.droppedPuts);
        assertTrue(meta.hitCost <= new OfflineBound(w).fooL(STORE) + 1e-6, "no policy beats the bound");
    }
}
