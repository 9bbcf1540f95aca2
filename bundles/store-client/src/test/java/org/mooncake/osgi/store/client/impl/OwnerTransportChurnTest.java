package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * The transport that serves a storage node's segment is stopped and started again and again (an
 * operator updating its bundle) while another process puts and gets through it. Threads: two
 * workers on the remote client, the test thread as DS unbinding and binding on the owner. Every
 * operation either works with the right bytes or fails with TRANSFER_FAIL, a failed put leaves
 * nothing readable, and once the churn ends every object put is read back over the last
 * transport.
 */
class OwnerTransportChurnTest {

    /** Waits until the workers have made {@code more} further attempts; the assertions do not depend on how long that takes. */
    private static void awaitAttempts(AtomicLong attempts, long more) {
        long target = attempts.get() + more;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (attempts.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the workers made no progress in 60 s");
            }
            Thread.onSpinWait();
        }
    }

    @RepeatedTest(3)
    void operationsThroughARestartingTransportWorkOrFailCleanly() throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        Transports table = new Transports();
        table.add(new LocalTransport());
        TcpTransport serving = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
        table.add(serving);
        try (Arena arena = Arena.ofShared(); TcpTransport readerNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            EmbeddedStoreClient owner = new EmbeddedStoreClient(master, table, "owner", "default", "tcp",
                    InstantSource.system());
            owner.mountNewSegment(64 << 20, arena);
            EmbeddedStoreClient remote = EmbeddedStoreClient.create(master, List.of(readerNet), "remote", "default",
                    "tcp", InstantSource.system());
            Map<String, byte[]> stored = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong failed = new AtomicLong();
            AtomicLong attempts = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int id = w;
                workers.add(Thread.ofPlatform().start(() -> {
                    Random rnd = new Random(id);
                    for (int i = 0; running.get(); i++) {
                        String key = "w" + id + "-" + i;
                        byte[] v = new byte[1_000 + rnd.nextInt(100_000)];
                        rnd.nextBytes(v);
                        try {
                            remote.put(key, v, ReplicateConfig.DEFAULT);
                            stored.put(key, v);
                        } catch (StoreException e) {
                            failed.incrementAndGet();
                            if (e.errorCode() != ErrorCode.TRANSFER_FAIL) {
                                wrong.add(e);
                            } else if (master.exists(org.mooncake.osgi.store.api.ObjectKey.of(key))) {
                                wrong.add(new AssertionError(key + ": a failed put left a readable object"));
                            }
                        }
                        attempts.incrementAndGet();
                        String earlier = "w" + id + "-" + rnd.nextInt(i + 1);
                        byte[] expected = stored.get(earlier);
                        if (expected != null) {
                            try {
                                assertArrayEquals(expected, remote.get(earlier), earlier);
                            } catch (StoreException e) {
                                failed.incrementAndGet();
                                if (e.errorCode() != ErrorCode.TRANSFER_FAIL) {
                                    wrong.add(e);
                                }
                            } catch (Throwable t) {
                                wrong.add(t);
                            }
                        }
                    }
                }));
            }
            for (int cycle = 0; cycle < 8; cycle++) {
                awaitAttempts(attempts, 20); // with the transport up
                owner.transportUnbound(serving); // DS unbinds before the bundle's transport closes
                table.remove(serving);
                serving.close();
                awaitAttempts(attempts, 20); // with it down: failing cleanly
                serving = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
                table.add(serving);
                owner.transportBound(serving);
            }
            awaitAttempts(attempts, 20);
            running.set(false);
            for (Thread t : workers) {
                t.join();
            }
            try {
                assertEquals(List.of(), List.copyOf(wrong));
                assertTrue(failed.get() > 0, "operations met the transport down");
                assertTrue(stored.size() > 0, "work was done");
                for (Map.Entry<String, byte[]> e : stored.entrySet()) {
                    assertArrayEquals(e.getValue(), remote.get(e.getKey()), e.getKey() + " after the churn");
                }
                assertEquals(1, master.segments().size());
            } finally {
                serving.close();
            }
        }
    }
}
