package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.RepeatedTest;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A reader's TCP transport is replaced (as when its bundle is updated) while two threads keep
 * putting and getting through it: transfers in flight on the old one finish or fail with
 * TRANSFER_FAIL, later ones use the new one, and no read ever returns wrong bytes.
 */
class TransportSwapTest {

    @RepeatedTest(3)
    void swappingTheTransportUnderLoadFailsCleanlyAndCarriesOn() throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        try (Arena arena = Arena.ofShared(); TcpTransport ownerNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            EmbeddedStoreClient owner = EmbeddedStoreClient.create(master, List.of(ownerNet), "owner", "default", "tcp",
                    InstantSource.system());
            owner.mountNewSegment(64 << 20, arena);
            TcpTransport oldNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            EmbeddedStoreClient reader = EmbeddedStoreClient.create(master, List.of(oldNet), "reader", "default", "tcp",
                    InstantSource.system());
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong ok = new AtomicLong();
            CountDownLatch beforeSwap = new CountDownLatch(50);
            CountDownLatch afterSwap = new CountDownLatch(50);
            AtomicBoolean swapped = new AtomicBoolean();
            AtomicLong failedCleanly = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int id = w;
                workers.add(Thread.ofPlatform().start(() -> {
                    Random rnd = new Random(id);
                    for (long i = 0; running.get(); i++) {
                        byte[] v = new byte[100_000 + rnd.nextInt(100_000)];
                        rnd.nextBytes(v);
                        String key = "w" + id + "-" + i;
                        boolean stored = false;
                        try {
                            reader.put(key, v, ReplicateConfig.DEFAULT);
                            stored = true;
                            assertArrayEquals(v, reader.get(key));
                            reader.remove(key, true);
                            ok.incrementAndGet();
                            (swapped.get() ? afterSwap : beforeSwap).countDown();
                        } catch (StoreException e) {
                            if (e.errorCode() == ErrorCode.TRANSFER_FAIL) {
                                failedCleanly.incrementAndGet();
                                if (!stored && reader.exists(key)) {
                                    wrong.add(new AssertionError(key + ": a failed put left a readable object"));
                                }
                            } else if (e.errorCode() != ErrorCode.OBJECT_NOT_FOUND) {
                                wrong.add(e);
                            }
                        } catch (Throwable t) {
                            wrong.add(t);
                        }
                    }
                }));
            }
            assertTrue(beforeSwap.await(60, TimeUnit.SECONDS), "work before the swap");
            long before = ok.get();
            TcpTransport newNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            reader.transports().add(newNet); // same protocol: the new one replaces the old in the map
            oldNet.close();
            swapped.set(true);
            assertTrue(afterSwap.await(60, TimeUnit.SECONDS), "work after the swap");
            long after = ok.get();
            running.set(false);
            for (Thread t : workers) {
                t.join();
            }
            newNet.close();
            assertEquals(List.of(), List.copyOf(wrong));
            assertTrue(after > before, "work went on through the new transport");
        }
    }
}
