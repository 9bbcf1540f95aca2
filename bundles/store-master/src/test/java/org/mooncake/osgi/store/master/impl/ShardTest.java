package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The shard is its own mutex: exclusion under contention, and misuse fails instead of deadlocking. */
class ShardTest {
    private long counter; // guarded by the shard under test

    @RepeatedTest(5)
    void threadsThatContendNeverOverlap() throws InterruptedException {
        Shard shard = new Shard();
        int threads = 4;
        int rounds = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < rounds; i++) {
                    shard.lock();
                    try {
                        counter++; // a lost update shows a broken exclusion
                    } finally {
                        shard.unlock();
                    }
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
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
