package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

class OffsetAllocatorTest {

    @Test
    void blocksAreAlignedAndFreeNeighboursCoalesce() {
        OffsetAllocator a = new OffsetAllocator(1024);
        long x = a.allocate(1);
        long y = a.allocate(100);
        long z = a.allocate(64);
        assertEquals(0, x);
        assertEquals(64, y);
        assertEquals(192, z);
        assertEquals(256, a.usedBytes());
        a.free(y, 100);
        a.free(x, 1);
        a.free(z, 64);
        assertEquals(0, a.usedBytes());
        assertEquals(1024, a.largestFreeExtent(), "all extents merged back into one");
        assertEquals(0, a.allocate(1024));
        assertEquals(-1, a.allocate(1));
    }

    @Test
    void freeExtentsAreListedByOffsetWithBatchFreesJoinedIn() {
        OffsetAllocator a = new OffsetAllocator(1024);
        for (int i = 0; i < 16; i++) {
            a.allocate(64); // blocks at 0, 64, ..., 960: full
        }
        a.free(128, 64);
        a.freeAll(new long[] {576, 512, 640}, new long[] {64, 64, 64}, 3); // returned, not yet in the trees
        long[][] free = a.freeExtents();
        assertEquals(2, free.length);
        assertEquals(List.of(128L, 64L), List.of(free[0][0], free[0][1]));
        assertEquals(List.of(512L, 192L), List.of(free[1][0], free[1][1]));
        assertEquals(192, a.largestFreeExtent());
    }

    @Test
    void freeingWhatIsNotAllocatedIsAnError() {
        OffsetAllocator a = new OffsetAllocator(1024);
        assertThrows(IllegalStateException.class, () -> a.free(64, 64));
        long x = a.allocate(128);
        a.free(x, 128);
        assertThrows(IllegalStateException.class, () -> a.free(x, 128), "double free");
        assertThrows(IllegalStateException.class, () -> a.free(1024, 64), "outside the segment");
        assertEquals(0, a.usedBytes());
    }

    /** Allocates and checks the block against every live one; a block that fits joins {@code live}. */
    private static void allocateChecked(OffsetAllocator a, TreeMap<Long, Long> live, long size) {
        long off = a.allocate(size);
        if (off >= 0) {
            var before = live.floorEntry(off);
            var after = live.ceilingEntry(off);
            assertTrue(before == null || before.getKey() + before.getValue() <= off, "overlaps predecessor");
            assertTrue(after == null || off + OffsetAllocator.blockSize(size) <= after.getKey(), "overlaps successor");
            live.put(off, OffsetAllocator.blockSize(size));
        }
    }

    @RepeatedTest(20)
    void randomAllocationsNeverOverlapAndAllSpaceComesBack(RepetitionInfo rep) {
        Random rnd = new Random(rep.getCurrentRepetition());
        OffsetAllocator a = new OffsetAllocator(1 << 20);
        TreeMap<Long, Long> live = new TreeMap<>();
        for (int i = 0; i < 5000; i++) {
            if (live.isEmpty() || rnd.nextInt(3) > 0) {
                allocateChecked(a, live, 1 + rnd.nextInt(20_000));
            } else {
                List<Long> keys = new ArrayList<>(live.keySet());
                long off = keys.get(rnd.nextInt(keys.size()));
                long block = live.remove(off);
                assertEquals(block, a.free(off, block));
            }
            assertEquals(live.values().stream().mapToLong(Long::longValue).sum(), a.usedBytes());
        }
        live.forEach(a::free);
        assertEquals(1 << 20, a.largestFreeExtent());
    }

    /** A round's batch free never waits for the monitor: with the old design this would hang. */
    @Test
    void aBatchFreeDoesNotWaitForAnAllocationInProgress() throws Exception {
        OffsetAllocator a = new OffsetAllocator(1024);
        long x = a.allocate(256);
        long y = a.allocate(256);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            synchronized (a) { // as a put's allocation does
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        held.await();
        try (ExecutorService round = Executors.newSingleThreadExecutor()) {
            Future<Long> freed = round.submit(() -> a.freeAll(new long[] {y, x}, new long[] {256, 256}, 2));
            assertEquals(512, freed.get(30, TimeUnit.SECONDS), "the monitor is still held: only a hang guard");
            assertEquals(0, a.usedBytes(), "free at once, before any allocation takes the runs");
        } finally {
            release.countDown();
            holder.join();
        }
        assertEquals(0, a.allocate(1024), "the next allocation finds the space, joined into one extent");
    }

    /** Allocations, single frees and batch frees mixed: no overlap, exact accounting, all space back. */
    @RepeatedTest(20)
    void batchFreesMixWithAllocationsAndSingleFrees(RepetitionInfo rep) {
        Random rnd = new Random(rep.getCurrentRepetition());
        OffsetAllocator a = new OffsetAllocator(1 << 20);
        TreeMap<Long, Long> live = new TreeMap<>();
        for (int i = 0; i < 5000; i++) {
            int op = live.isEmpty() ? 0 : rnd.nextInt(10);
            if (op < 6) {
                allocateChecked(a, live, 1 + rnd.nextInt(8_000));
            } else if (op < 8) {
                long off = new ArrayList<>(live.keySet()).get(rnd.nextInt(live.size()));
                assertEquals(live.get(off), a.free(off, live.remove(off)));
            } else {
                // a batch: a stretch of neighbours, as a round's oldest victims usually are
                List<Long> keys = new ArrayList<>(live.keySet());
                int from = rnd.nextInt(keys.size());
                int n = Math.min(keys.size() - from, 1 + rnd.nextInt(50));
                long[] offsets = new long[n];
                long[] sizes = new long[n];
                long expected = 0;
                for (int k = 0; k < n; k++) {
                    offsets[k] = keys.get(from + k);
                    sizes[k] = live.remove(offsets[k]);
                    expected += sizes[k];
                }
                assertEquals(expected, a.freeAll(offsets, sizes, n));
            }
            assertEquals(live.values().stream().mapToLong(Long::longValue).sum(), a.usedBytes());
        }
        live.forEach(a::free);
        assertEquals(1 << 20, a.largestFreeExtent());
    }
}
