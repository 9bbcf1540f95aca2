package org.mooncake.osgi.policy.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.master.impl.MasterSettings;

/** What every policy must do, whatever it ranks by. Runs against the real master. */
class PolicyMatrixTest {
    private static final long CAPACITY = 1L << 20;
    private static final int SIZE = 8192;
    private static final ReplicateConfig PLAIN = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();

    static List<Policies.Named> policies() {
        return Policies.all();
    }

    static List<Policies.Named> budgeted() {
        return Policies.budgeted();
    }

    static Stream<Arguments> policiesAndSeeds() {
        return Policies.all().stream().flatMap(p -> Stream.of(1L, 2L, 3L).map(seed -> Arguments.of(p, seed)));
    }

    /** Fills the store to just past {@code fraction} with objects o0, o1, ... of {@link #SIZE} bytes. */
    private static int fill(VirtualStore s, double fraction, ReplicateConfig c, int from) {
        return s.fill(ObjectKey.DEFAULT_TENANT, fraction, SIZE, c, from);
    }

    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("policiesAndSeeds")
    void neverEvictsLeasedOrHardPinnedObjects(Policies.Named p, long seed) {
        VirtualStore s = new VirtualStore(CAPACITY, p.make().get());
        Random rnd = new Random(seed);
        List<String> pinned = new ArrayList<>();
        int evicted = 0;
        for (int i = 0; i < 2000; i++) {
            boolean hard = rnd.nextInt(20) == 0 && pinned.size() < 20;
            ObjectDataType type = rnd.nextBoolean() ? ObjectDataType.KVCACHE : ObjectDataType.HIDDEN_STATE;
            String key = "k" + i;
            try {
                s.put(key, 1 + rnd.nextInt(2 * SIZE), PLAIN.toBuilder().dataType(type).hardPin(hard)
                        .recomputeCostMs(rnd.nextInt(4) == 0 ? Double.NaN : rnd.nextDouble() * 100).build());
                if (hard) {
                    pinned.add(key);
                }
            } catch (RuntimeException full) {
                // no room until the next round
            }
            for (int r = 0; r < 3; r++) {
                s.get(ObjectKey.of("k" + rnd.nextInt(i + 1)));
            }
            s.advance(rnd.nextInt(200));
            if (i % 50 == 49) {
                List<String> leased = new ArrayList<>();
                for (int j = Math.max(0, i - 200); j <= i; j++) {
                    var info = s.master.queryKey(ObjectKey.of("k" + j));
                    if (info.isPresent() && info.get().leaseExpiresAtMs() > s.now.get()) {
                        leased.add("k" + j);
                    }
                }
                long before = s.master.stats().objects();
                s.master.runEvictionRound();
                evicted += (int) (before - s.master.stats().objects());
                for (String k : leased) {
                    assertTrue(s.has(k), k + " was leased and got evicted");
                }
                for (String k : pinned) {
                    assertTrue(s.has(k), k + " was hard-pinned and got evicted");
                }
                assertTrue(s.used() <= CAPACITY);
            }
        }
        assertTrue(evicted > 0, "the workload never made the policy evict");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aRoundMeetsItsTarget(Policies.Named p) {
        VirtualStore s = new VirtualStore(CAPACITY, p.make().get());
        fill(s, 0.95, PLAIN, 0);
        s.advance(60_000);
        double usedBefore = (double) s.used() / CAPACITY;
        s.master.runEvictionRound();
        double target = Math.max(0.05, usedBefore - 0.90 + 0.05);
        assertTrue(s.used() <= (usedBefore - target) * CAPACITY + SIZE,
                "used " + s.used() + " after a round from " + usedBefore);
        assertTrue(s.used() >= (usedBefore - target) * CAPACITY - 2 * SIZE, "evicted far more than the target");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void softPinnedObjectsGoOnlyWhenNothingElseCan(Policies.Named p) {
        ReplicateConfig softPinned = PLAIN.toBuilder().softPin(SoftPinAction.ENABLE).softPinTtlMs(3_600_000).build();
        VirtualStore s = new VirtualStore(CAPACITY, p.make().get());
        int pinnedEnd = fill(s, 0.30, softPinned, 0);
        fill(s, 0.95, PLAIN, pinnedEnd);
        s.advance(60_000);
        s.master.runEvictionRound();
        for (int i = 0; i < pinnedEnd; i++) {
            assertTrue(s.has("o" + i), "pass 1 had enough unpinned objects, yet soft-pinned o" + i + " went");
        }

        // Now nearly everything is soft-pinned: pass 2 must take pinned objects, but only after every unpinned one.
        VirtualStore t = new VirtualStore(CAPACITY, p.make().get());
        int end = fill(t, 0.93, softPinned, 0);
        int unpinnedEnd = fill(t, 0.95, PLAIN, end);
        t.advance(60_000);
        long before = t.master.stats().objects();
        t.master.runEvictionRound();
        assertTrue(t.master.stats().objects() < before - (unpinnedEnd - end), "pass 2 did not run");
        for (int i = end; i < unpinnedEnd; i++) {
            assertTrue(!t.has("o" + i), "unpinned o" + i + " survived while soft-pinned objects were evicted");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("budgeted")
    void aTypeOverItsBudgetGivesUpObjectsFirst(Policies.Named p) {
        ReplicateConfig hidden = PLAIN.toBuilder().dataType(ObjectDataType.HIDDEN_STATE).build();
        VirtualStore s = new VirtualStore(CAPACITY, MasterSettings.DEFAULTS, p.make().get());
        int kvEnd = fill(s, 0.55, PLAIN, 0);
        s.advance(60_000);
        int hiddenEnd = fill(s, 0.95, hidden, kvEnd);
        s.advance(60_000);
        double targetFraction = Math.max(0.05, (double) s.used() / CAPACITY - 0.90 + 0.05);
        s.master.runEvictionRound();
        int hiddenGone = 0;
        for (int i = kvEnd; i < hiddenEnd; i++) {
            hiddenGone += s.has("o" + i) ? 0 : 1;
        }
        int hiddenCount = hiddenEnd - kvEnd;
        double hiddenShare = (double) hiddenCount * SIZE / CAPACITY;
        double over = (hiddenShare - 0.12) / hiddenShare;
        long quota = (long) Math.ceil(hiddenCount * Math.min(targetFraction, over));
        // Lease order alone would take only the older KV objects.
        assertTrue(hiddenGone >= quota, "hidden gave up " + hiddenGone + ", budget asks " + quota);
        assertEquals(hiddenGone, quota, "the budget pass took more than its share before the global pass");
    }
}
