package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

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
        Unlinker u = new Unlinker(batch -> { }, batch -> {
            try {
                purgeMayGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            purged.addAndGet(batch.size());
        });
        for (int i = 0; i < 3_000; i++) {
            u.add(IndexEntry.EVICTED);
        }
        u.close(); // returns although the purge is held up
        assertEquals(0, purged.get());
        purgeMayGo.countDown();
        u.awaitPurged();
        assertEquals(3_000, purged.get());
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

    @Test
    void aPassWithoutVictimsClosesAtOnce() {
        AtomicInteger unlinked = new AtomicInteger();
        Unlinker u = new Unlinker(batch -> unlinked.addAndGet(batch.size()), batch -> unlinked.addAndGet(batch.size()));
        u.close();
        u.awaitPurged();
        assertEquals(0, unlinked.get());
    }
}
