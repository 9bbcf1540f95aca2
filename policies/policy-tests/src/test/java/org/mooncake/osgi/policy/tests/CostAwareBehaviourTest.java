package org.mooncake.osgi.policy.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.costaware.CostAwarePolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.impl.MasterSettings;

/** What the cost-aware policy learns, against the real master. */
class CostAwareBehaviourTest {
    private static final long CAPACITY = 1L << 20;
    private static final int SIZE = 8192;

    /** The store as a cache in front of recompute: a read that misses writes the object back. */
    private static final class Store {
        final VirtualStore v;
        final org.mooncake.osgi.store.master.impl.StoreMaster master;
        final java.util.concurrent.atomic.AtomicLong now;

        Store(CostAwarePolicy policy) {
            v = new VirtualStore(CAPACITY, MasterSettings.DEFAULTS.withLeaseTtl(100), policy);
            master = v.master;
            now = v.now;
        }

        void access(String key, ReplicateConfig c) {
            if (!v.get(ObjectKey.of(key))) {
                try {
                    v.put(key, SIZE, c);
                } catch (StoreException full) {
                    master.runEvictionRound();
                }
            }
            if (master.stats().usedRatio() > 0.9) {
                master.runEvictionRound();
            }
        }

        boolean has(String key) {
            return v.has(key);
        }
    }

    private static final ReplicateConfig KV = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
    private static final ReplicateConfig TENSOR = KV.toBuilder().dataType(ObjectDataType.TENSOR).build();

    /**
     * A loop of TENSOR objects read every 3 s amid a stream of KV objects read once: lease order
     * evicts the loop (its reads are older than the stream's), the cost-aware policy learns to keep it.
     */
    @Test
    void itLearnsWhichClassIsReadAgainAndKeepsIt() {
        Store s = new Store(new CostAwarePolicy());
        int loop = 40;
        int stream = 0;
        int loopHitsLate = 0;
        for (int round = 0; round < 60; round++) {
            for (int i = 0; i < loop; i++) {
                boolean hit = s.has("loop" + i);
                s.access("loop" + i, TENSOR);
                if (round >= 40 && hit) {
                    loopHitsLate++;
                }
                s.now.addAndGet(5);
            }
            for (int i = 0; i < 200; i++) {
                s.access("stream" + stream++, KV);
                s.now.addAndGet(14);
            }
        }
        // The cache holds ~115 objects, a 3 s reuse gap spans ~240 accesses: LRU would never hit the loop.
        assertTrue(loopHitsLate > 0.9 * loop * 20, "loop hits in the last 20 rounds: " + loopHitsLate);
    }

    @Test
    void withEqualReuseTheCostlierObjectsStay() {
        Store s = new Store(new CostAwarePolicy());
        ReplicateConfig cheap = KV.toBuilder().recomputeCostMs(1).build();
        ReplicateConfig dear = KV.toBuilder().recomputeCostMs(50).build();
        for (int i = 0; i < 120; i++) {
            s.access("dear" + i, dear);
            s.now.addAndGet(10);
            s.access("cheap" + i, cheap);
            s.now.addAndGet(10);
        }
        s.now.addAndGet(1_000);
        s.master.runEvictionRound();
        int dearLeft = 0;
        int cheapLeft = 0;
        for (int i = 0; i < 120; i++) {
            dearLeft += s.has("dear" + i) ? 1 : 0;
            cheapLeft += s.has("cheap" + i) ? 1 : 0;
        }
        assertTrue(dearLeft > cheapLeft, "dear " + dearLeft + " cheap " + cheapLeft);
    }

    @Test
    void aWriteBackOfAnEvictedKeyIsRecognised() {
        CostAwarePolicy p = new CostAwarePolicy();
        Store s = new Store(p);
        for (int i = 0; i < 200; i++) {
            s.access("k" + i, KV);
            s.now.addAndGet(10);
        }
        assertTrue(!s.has("k0"), "k0 should have been evicted");
        String removed = null;
        for (int i = 199; i > 100; i--) {
            if (s.has("k" + i)) {
                s.master.remove(ObjectKey.of("k" + i), true);
                removed = removed == null ? "k" + i : removed;
            }
        }
        int held = p.ghostsHeld();
        assertTrue(held > 0, "no evicted key was remembered");
        s.access("k0", KV);
        assertEquals(held - 1, p.ghostsHeld(), "the write-back of k0 did not take its ghost");
        s.access(removed, KV);
        assertEquals(held - 1, p.ghostsHeld(), "a removed key is no ghost");
    }

    /** 80 groups that each write again after 1 s: the policy learns that a group quiet for longer has ended. */
    private static void teachOneSecondReturns(Store s) {
        ReplicateConfig cheap = KV.toBuilder().recomputeCostMs(1).build();
        int teachers = 80; // more return gaps than the policy needs before it trusts their quantile
        for (int i = 0; i < teachers; i++) {
            s.access("t" + i, cheap.toBuilder().groupId("t" + i).build());
            s.now.addAndGet(10);
        }
        s.now.addAndGet(200);
        for (int i = 0; i < teachers; i++) { // each group back after 1 s, writing its next turn's block
            s.access("t" + i + "-next", cheap.toBuilder().groupId("t" + i).build());
            s.now.addAndGet(10);
        }
    }

    private static final ReplicateConfig DEAR = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).recomputeCostMs(1_000).build();
    private static final ReplicateConfig CHEAP = KV.toBuilder().recomputeCostMs(1).build();

    /**
     * An object put as read by its group only goes first once its group has written nothing for
     * longer than almost every return the policy has seen (here all returns took 1 s); an object
     * of the same group and cost without the hint, and one of a group still writing, stay.
     */
    @Test
    void aGroupOnlyObjectGoesFirstOnceItsGroupHasEnded() {
        Store s = new Store(new CostAwarePolicy());
        teachOneSecondReturns(s);
        s.access("dead-upload", DEAR.toBuilder().groupId("dead").groupOnly(true).build());
        s.access("dead-shared", DEAR.toBuilder().groupId("dead").build());
        s.access("live-upload", DEAR.toBuilder().groupId("live").groupOnly(true).build());
        int filler = 0;
        for (int step = 0; step < 15; step++) { // 3 s: "dead" stays quiet, "live" writes a turn every 200 ms
            s.now.addAndGet(200);
            s.access("live-kv" + step, CHEAP.toBuilder().groupId("live").build());
            for (int i = 0; i < 10; i++) {
                s.access("filler" + filler++, CHEAP);
            }
        }
        assertTrue(s.master.stats().evictionRounds() > 2, "the filler made rounds run");
        assertTrue(!s.has("dead-upload"), "the ended group's upload should have gone first");
        assertTrue(s.has("dead-shared"), "the same group's object without the hint is judged on its worth");
        assertTrue(s.has("live-upload"), "a live group's upload stays");
    }

    /**
     * A connector that marks shared objects group-only: uploads whose groups never write again are
     * read every 400 ms by other sessions (one that misses recomputes the object and writes it back
     * under no group). Once the policy has seen that such objects are read again after all, it
     * stops following the hint: a new upload of that kind, read as often, then stays like any dear
     * object instead of going first once its group has gone quiet.
     */
    @Test
    void aGroupOnlyHintThatProvesFalseIsIgnored() {
        CostAwarePolicy policy = new CostAwarePolicy();
        Store s = new Store(policy);
        teachOneSecondReturns(s);
        for (int i = 0; i < 40; i++) {
            s.access("shared" + i, DEAR.toBuilder().groupId("liar" + i).groupOnly(true).build());
        }
        int filler = 0;
        for (long rounds = s.master.stats().evictionRounds(); s.master.stats().evictionRounds() == rounds;) {
            s.access("filler" + filler++, CHEAP); // a round, which also tells the observers when a group has ended
        }
        for (int step = 0; step < 10; step++) { // 4 s of others' reads of the 40 "private" uploads, one every 10 ms
            for (int i = 0; i < 40; i++) {
                readOrWriteBack(s, "shared" + i, "liar" + i);
                s.now.addAndGet(10);
            }
        }
        s.access("last", DEAR.toBuilder().groupId("liar-last").groupOnly(true).build());
        int misses = 0;
        for (int step = 0; step < 10; step++) { // 4 s more: its group stays quiet, others read it every 400 ms
            for (int i = 0; i < 40; i++) {
                if (i == 0) {
                    misses += s.has("last") ? 0 : 1;
                    readOrWriteBack(s, "last", "liar-last");
                }
                if (i % 4 == 0) {
                    s.access("filler" + filler++, CHEAP);
                }
                s.now.addAndGet(10);
            }
        }
        assertTrue(s.master.stats().evictionRounds() > 10, "the filler made rounds run");
        assertTrue(policy.describe().contains("hint ignored"), policy.describe());
        assertEquals(0, misses, "an upload read every 400 ms stays once the hint is ignored");
    }

    /** A read of a dear upload put as group-only by {@code group}; on a miss, the reader writes it back under no group. */
    private static void readOrWriteBack(Store s, String key, String group) {
        if (s.has(key)) {
            s.access(key, DEAR.toBuilder().groupId(group).groupOnly(true).build());
        } else {
            s.access(key, DEAR);
        }
    }
}
