package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.RepeatedTest;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;

/**
 * Races: four threads put, upsert, get and remove 64 shared keys while a fifth runs eviction
 * rounds and housekeeping on a store too small for them all, and the clock moves. A get returns
 * the exact bytes of some write of that key or a documented refusal; nothing leaks.
 */
class ConcurrentStoreTest {
    private static final Set<ErrorCode> REFUSALS = EnumSet.of(ErrorCode.OBJECT_NOT_FOUND,
            ErrorCode.OBJECT_ALREADY_EXISTS, ErrorCode.OBJECT_BEING_WRITTEN, ErrorCode.OBJECT_HAS_LEASE, ErrorCode.NO_AVAILABLE_HANDLE,
            ErrorCode.REPLICA_IS_NOT_READY, ErrorCode.INVALID_WRITE);

    /** A value that names its key and version and is checkable on its own. */
    static byte[] value(int key, long version, int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(key).putLong(version);
        while (b.hasRemaining()) {
            b.put((byte) (key * 31 + version));
        }
        return b.array();
    }

    static void check(int key, byte[] got) {
        ByteBuffer b = ByteBuffer.wrap(got);
        assertEquals(key, b.getInt(), "a get returned another key's bytes");
        long version = b.getLong();
        while (b.hasRemaining()) {
            assertEquals((byte) (key * 31 + version), b.get(), "torn value");
        }
    }

    @RepeatedTest(5)
    void racingClientsAndEvictionNeverExposeWrongOrTornBytes() throws Exception {
        try (ClientFixture f = new ClientFixture(256 * 1024, 256 * 1024)) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong versions = new AtomicLong();
            AtomicLong gets = new AtomicLong();
            AtomicLong written = new AtomicLong(); // bytes of puts and upserts that succeeded, one replica each
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch done = new CountDownLatch(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    try {
                        for (int i = 0; i < 3000; i++) {
                            int key = rnd.nextInt(64);
                            String k = "k" + key;
                            try {
                                switch (rnd.nextInt(5)) {
                                    case 0 -> {
                                        byte[] v = value(key, versions.incrementAndGet(), 1024 + rnd.nextInt(16_384));
                                        f.client.put(k, v, ReplicateConfig.DEFAULT);
                                        written.addAndGet(v.length);
                                    }
                                    case 1 -> {
                                        byte[] v = value(key, versions.incrementAndGet(), 1024 + rnd.nextInt(16_384));
                                        f.client.upsert(k, v, ReplicateConfig.builder().replicaCount(2).build());
                                        written.addAndGet(v.length); // one replica at least: two where both segments have room
                                    }
                                    case 2, 3 -> {
                                        check(key, f.client.get(k));
                                        gets.incrementAndGet();
                                    }
                                    default -> f.client.remove(k, rnd.nextBoolean());
                                }
                            } catch (StoreException e) {
                                if (!REFUSALS.contains(e.errorCode())) {
                                    throw e;
                                }
                            }
                            f.clock.ms.addAndGet(rnd.nextInt(3));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        done.countDown();
                    }
                }));
            }
            Thread maintenance = Thread.ofPlatform().start(() -> {
                while (running.get()) {
                    f.master.runEvictionRound();
                    f.master.heartbeat("c1");
                    f.master.runHousekeeping();
                }
            });
            done.await();
            running.set(false);
            maintenance.join();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), List.copyOf(failures));
            assertTrue(gets.get() > 0, "some gets found their object");
            assertTrue(f.master.stats().evictionRounds() > 0, "eviction raced the clients");
            // counted by four threads at once: nothing failed, nothing lost (a put refused after
            // its write, by a forced remove, adds written bytes the threads did not count)
            TransferStats moved = f.client.transferStats().getFirst();
            assertEquals(List.of(0L, 0L, 0L), List.of(moved.failedWrites(), moved.failedReads(), moved.checksumMismatches()));
            assertTrue(moved.bytesWritten() >= written.get(), moved + " against " + written + " bytes put");
            assertTrue(moved.reads() >= gets.get(), moved + " against " + gets + " gets");
            // no leak: once every lease and deferred free is due, removing all returns every byte
            f.clock.ms.addAndGet(700_000);
            f.client.removeAll(true);
            f.master.heartbeat("c1");
            f.master.runHousekeeping();
            assertEquals(0, f.master.stats().usedBytes());
            assertEquals(0, f.master.stats().objects());
        }
    }
}
