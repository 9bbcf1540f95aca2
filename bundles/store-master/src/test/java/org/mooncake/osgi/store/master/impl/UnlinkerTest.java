package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

class UnlinkerTest {
    @Test
    void closeReturnsOnlyOnceEveryEntryIsPurgedPartialBatchIncluded() {
        AtomicInteger unlinked = new AtomicInteger();
        Unlinker u = new Unlinker(batch -> {
            LockSupport.parkNanos(20_000_000); // slower than the adds, so close has to wait
            unlinked.addAndGet(batch.size());
        });
        int n = 5_000; // two full batches and a partial one
        for (int i = 0; i < n; i++) {
            u.add(IndexEntry.EVICTED);
        }
        u.close();
        assertEquals(n, unlinked.get());
    }

    @Test
    void aPassWithoutVictimsClosesAtOnce() {
        AtomicInteger unlinked = new AtomicInteger();
        new Unlinker(batch -> unlinked.addAndGet(batch.size())).close();
        assertEquals(0, unlinked.get());
    }
}
