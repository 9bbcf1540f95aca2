package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Collections;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The shard is its own mutex: exclusion under contention, and misuse fails instead of deadlocking. */
class ShardTest {
    private long counter; // guarded by the shard under test

    @RepeatedTest(5)
    void threadsThatContendNeverOverlap() throws Exception {
        Shard shard = new Shard();
        int threads = 4;
        int rounds = 50_000;
        CyclicBarrier together = new CyclicBarrier(threads);
        Callable<Void> worker = () -> {
            together.await();
            for (int i = 0; i < rounds; i++) {
                shard.lock();
                try {
                    counter++; // a lost update shows a broken exclusion
                } finally {
                    shard.unlock();
                }
            }
            return null;
        };
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (Future<Void> f : pool.invokeAll(Collections.nCopies(threads, worker))) {
                f.get();
            }
        }
        assertEquals((long) threads * rounds, counter);
    }

    @Test
    void takingItTwiceOrReleasingItUnheldFails() throws InterruptedException {
        Shard shard = new Shard();
        assertThrows(IllegalMonitorStateException.class, shard::unlock);
        shard.lock();
        assertThrows(IllegalStateException.class, shard::lock);
        Throwable[] fromOther = new Throwable[1];
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                shard.unlock();
            } catch (Throwable e) {
                fromOther[0] = e;
            }
        });
        other.join();
        assertEquals(IllegalMonitorStateException.class, fromOther[0].getClass(), "only the holder releases");
        shard.unlock();
        shard.lock(); // free again
        shard.unlock();
    }
}
