package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

class GhostListTest {
    private static int key(int i) {
        return ObjectKey.of("block-" + i).hashCode();
    }

    private static GhostList.Ghost ghost(int i) {
        return new GhostList.Ghost(i % 2 == 0 ? ObjectDataType.KVCACHE : ObjectDataType.HIDDEN_STATE, i % 7, 1000L + i, i);
    }

    @Test
    void aGhostComesBackOnceWithWhatItWas() {
        GhostList ghosts = new GhostList(1000);
        for (int i = 0; i < 500; i++) {
            ghosts.add(key(i), ghost(i));
        }
        assertEquals(500, ghosts.size());
        for (int i = 0; i < 500; i++) {
            assertEquals(ghost(i), ghosts.take(key(i)), "ghost " + i);
            assertNull(ghosts.take(key(i)), "taken twice: " + i);
        }
        assertNull(ghosts.take(key(777)), "never evicted");
        assertNull(ghosts.take(new ObjectKey("other", "block-1").hashCode()), "another tenant's key");
        assertEquals(0, ghosts.size());
    }

    @Test
    void aFullListDropsItsOldestAndKeepsItsNewest() {
        GhostList ghosts = new GhostList(1000);
        for (int i = 0; i < 20_000; i++) {
            ghosts.add(key(i), ghost(i));
        }
        assertEquals(1000, ghosts.size());
        for (int i = 0; i < 100; i++) {
            assertNull(ghosts.take(key(i)), "one of the oldest survived: " + i);
        }
        assertEquals(ghost(19_999), ghosts.take(key(19_999)));
        // takes leave holes that later adds do not need to fill: the size follows what is held
        assertEquals(999, ghosts.size());
    }

    /** A round adds its victims in batches; what the list then holds must be what one add each would leave. */
    @Test
    void addingInBatchesLeavesWhatAddingOneByOneLeaves() {
        for (int capacity : new int[] {0, 1, 1000, 5_000, 70_000}) { // one stripe, several, and the most
            GhostList oneByOne = new GhostList(capacity);
            GhostList batched = new GhostList(capacity);
            java.util.Random r = new java.util.Random(capacity);
            int n = 3 * Math.max(capacity, 1000); // past full, so that the oldest are dropped
            for (int i = 0; i < n;) {
                int batch = Math.min(n - i, 1 + r.nextInt(1500));
                int[] hashes = new int[batch];
                byte[] types = new byte[batch];
                int[] classes = new int[batch];
                long[] last = new long[batch];
                long[] idle = new long[batch];
                for (int j = 0; j < batch; j++, i++) {
                    GhostList.Ghost g = ghost(i);
                    oneByOne.add(key(i), g);
                    hashes[j] = key(i);
                    types[j] = (byte) g.type().ordinal();
                    classes[j] = g.objectClass();
                    last[j] = g.lastAccessMs();
                    idle[j] = g.idleAtEvictionMs();
                }
                batched.addAll(batch, hashes, types, classes, last, idle);
            }
            assertEquals(oneByOne.size(), batched.size(), "capacity " + capacity);
            for (int i = 0; i < n; i++) {
                assertEquals(oneByOne.take(key(i)), batched.take(key(i)), "capacity " + capacity + ", ghost " + i);
            }
        }
    }

    @Test
    void resizingKeepsTheNewestThatFitAndZeroHoldsNothing() {
        GhostList ghosts = new GhostList(1000);
        for (int i = 0; i < 1000; i++) {
            ghosts.add(key(i), ghost(i));
        }
        ghosts.resize(100);
        assertTrue(ghosts.size() <= 100 && ghosts.size() >= 90, "held " + ghosts.size());
        assertNotNull(ghosts.take(key(999)), "the newest stays");
        assertNull(ghosts.take(key(0)), "the oldest goes");
        ghosts.resize(0);
        ghosts.add(key(5000), ghost(5000));
        assertEquals(0, ghosts.size());
        assertNull(ghosts.take(key(5000)));
    }

    /** A put never waits for the eviction thread: a busy stripe makes the take miss, and the ghost stays. */
    @Test
    void aTakeFromABusyStripeReturnsAtOnceAndLeavesTheGhost() throws Exception {
        GhostList ghosts = new GhostList(100);
        ghosts.add(key(1), ghost(1));
        GhostList.Ghost[] fromPut = {ghost(0)};
        ghosts.whileStripeHeld(key(1), () -> {
            Thread put = Thread.ofPlatform().start(() -> fromPut[0] = ghosts.take(key(1)));
            try {
                put.join(); // would never return if take waited for the stripe
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertNull(fromPut[0]);
        assertEquals(ghost(1), ghosts.take(key(1)));
    }

    /** The eviction thread adds while put threads take: every ghost is taken at most once. */
    @RepeatedTest(5)
    void concurrentTakesNeverShareAGhost() throws Exception {
        int keys = 50_000;
        GhostList ghosts = new GhostList(2 * keys); // room in every stripe: nothing is dropped
        AtomicIntegerArray takenBy = new AtomicIntegerArray(keys);
        try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
            Future<?> adder = pool.submit(() -> {
                for (int i = 0; i < keys; i++) {
                    ghosts.add(key(i), ghost(i));
                }
            });
            Future<?>[] takers = new Future<?>[2];
            for (int t = 0; t < takers.length; t++) {
                takers[t] = pool.submit(() -> {
                    for (int pass = 0; pass < 3; pass++) {
                        for (int i = 0; i < keys; i++) {
                            GhostList.Ghost g = ghosts.take(key(i));
                            if (g != null) {
                                assertEquals(ghost(i), g);
                                takenBy.incrementAndGet(i);
                            }
                        }
                    }
                });
            }
            adder.get();
            for (Future<?> f : takers) {
                f.get();
            }
        }
        int taken = 0;
        for (int i = 0; i < keys; i++) {
            assertTrue(takenBy.get(i) <= 1, "ghost " + i + " taken " + takenBy.get(i) + " times");
            taken += takenBy.get(i);
        }
        assertEquals(keys, taken + ghosts.size(), "every ghost is either taken or still held");
    }
}
