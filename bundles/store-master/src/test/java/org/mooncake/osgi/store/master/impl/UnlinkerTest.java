package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.SegmentDescriptor;

class UnlinkerTest {
    @Test
    void closeReturnsOnlyOnceEveryEntryIsUnlistedPartialBatchIncluded() {
        AtomicInteger unlisted = new AtomicInteger();
        AtomicInteger purged = new AtomicInteger();
        Unlinker u = new Unlinker(batch -> {
            LockSupport.parkNanos(20_000_000); // slower than the adds, so close has to wait
            unlisted.addAndGet(batch.size());
        }, batch -> purged.addAndGet(batch.size()));
        int n = 5_000; // two full batches and a partial one
        for (int i = 0; i < n; i++) {
            u.add(IndexEntry.EVICTED);
        }
        u.close();
        assertEquals(n, unlisted.get());
        u.awaitPurged();
        assertEquals(n, purged.get());
    }

    /** The round does not wait for the lease order's purge, only for the listing. */
    @Test
    void closeDoesNotWaitForThePurgeAndAwaitPurgedDoes() throws Exception {
        CountDownLatch purgeMayGo = new CountDownLatch(1);
        AtomicInteger purged = new AtomicInteger();
        Unlinker u = heldUp(purgeMayGo, purged, 3_000); // returns although the purge is held up
        assertEquals(0, purged.get());
        purgeMayGo.countDown();
        u.awaitPurged();
        assertEquals(3_000, purged.get());
    }

    /**
     * A later pass of a round (the room's) unlists at once, without waiting for the pass before it
     * to purge, but purges only after it: purges never run side by side, and awaiting the last
     * awaits them all.
     */
    @RepeatedTest(5)
    void aSuccessorUnlistsAtOnceAndPurgesOnlyAfterItsPredecessor() throws Exception {
        CountDownLatch firstMayPurge = new CountDownLatch(1);
        AtomicInteger firstPurged = new AtomicInteger();
        AtomicInteger firstPurgedWhenSecondPurged = new AtomicInteger(-1);
        Unlinker first = heldUp(firstMayPurge, firstPurged, 3_000);
        AtomicInteger secondUnlisted = new AtomicInteger();
        Unlinker second = new Unlinker(batch -> secondUnlisted.addAndGet(batch.size()),
                all -> firstPurgedWhenSecondPurged.set(firstPurged.get()), first);
        for (int i = 0; i < 5_000; i++) {
            second.add(IndexEntry.EVICTED);
        }
        second.close(); // returns although the first purge is held up
        assertEquals(5_000, secondUnlisted.get());
        assertEquals(-1, firstPurgedWhenSecondPurged.get(), "the second purged before the first");
        firstMayPurge.countDown();
        second.awaitPurged();
        assertEquals(3_000, firstPurgedWhenSecondPurged.get());
    }

    /** A closed unlinker of {@code n} victims whose purge counts into {@code purged} once {@code purgeMayGo} opens. */
    private static Unlinker heldUp(CountDownLatch purgeMayGo, AtomicInteger purged, int n) {
        Unlinker u = new Unlinker(batch -> { }, all -> {
            try {
                purgeMayGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            purged.addAndGet(all.size());
        });
        for (int i = 0; i < n; i++) {
            u.add(IndexEntry.EVICTED);
        }
        u.close();
        return u;
    }

    /** Every entry is unlisted once, then all are purged at once, sorted by lease. */
    @RepeatedTest(10)
    void everyEntryIsUnlistedThenPurgedOnce() {
        AtomicInteger unlisted = new AtomicInteger();
        AtomicInteger unlistedWhenPurged = new AtomicInteger(-1);
        AtomicInteger purged = new AtomicInteger();
        Unlinker u = new Unlinker(batch -> unlisted.addAndGet(batch.size()), all -> {
            unlistedWhenPurged.set(unlisted.get());
            purged.addAndGet(all.size());
        });
        int n = 9_000 + ThreadLocalRandom.current().nextInt(2_048);
        for (int i = 0; i < n; i++) {
            u.add(IndexEntry.EVICTED);
        }
        u.close();
        assertEquals(n, unlisted.get());
        u.awaitPurged();
        assertEquals(n, unlistedWhenPurged.get(), "the purge starts once every entry is unlisted");
        assertEquals(n, purged.get());
    }

    /** A batch says where each single-replica victim is listed; the others are listed nowhere. */
    @Test
    void aBatchCarriesTheListingOfSingleReplicaVictimsOnly() {
        Segment s1 = new Segment(new SegmentDescriptor("s1", "c1", 1 << 20, List.of()));
        Segment s2 = new Segment(new SegmentDescriptor("s2", "c1", 1 << 20, List.of()));
        Unlinker.Batch b = new Unlinker.Batch();
        b.add(entry(List.of(new Replica(s1, 4096, 100))));
        b.add(entry(List.of(new Replica(s2, 8192, 100), new Replica(s1, 0, 100))));
        b.add(IndexEntry.EVICTED);
        assertEquals(3, b.size());
        assertSame(s1, b.segments[0]);
        assertEquals(4096, b.offsets[0]);
        assertNull(b.segments[1]);
        assertNull(b.segments[2]);
    }

    private static IndexEntry entry(List<Replica> replicas) {
        ObjectMeta m = new ObjectMeta(ObjectKey.of("k" + replicas.size()));
        m.current(new Version(1, "writer", 100, ReplicateConfig.DEFAULT, replicas, 0, 0));
        return new IndexEntry(m, null);
    }

    @Test
    void aPassWithoutVictimsClosesAtOnce() {
        AtomicInteger unlinked = new AtomicInteger();
        Unlinker u = new Unlinker(batch -> unlinked.addAndGet(batch.size()), batch -> unlinked.addAndGet(batch.size()));
        u.close();
        u.awaitPurged();
        assertEquals(0, unlinked.get());
    }
}
