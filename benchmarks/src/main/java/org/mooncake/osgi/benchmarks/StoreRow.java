package org.mooncake.osgi.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * The store's put and get over one transport (see {@link TransferSystem#transport}): a storage
 * node and a pure client, each with its own transport instance, share an in-process master, so
 * bytes cross the real transport (kernel TCP on loopback, a second mapping of the shm file).
 */
final class StoreRow {
    private StoreRow() {
    }

    static List<Result> measure(String name, Supplier<Transport> transport, boolean onePeer, long size,
            TransferSystem.Rig rig) throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        // Each object is removed right after its get; its read lease would hold the space for 10 s,
        // so the clock jumps past the lease before the remove (leases are not what is measured).
        AtomicLong jump = new AtomicLong();
        InstantSource clock = () -> java.time.Instant.ofEpochMilli(System.currentTimeMillis() + jump.get());
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, clock, policies);
        Transport ownerNet = transport.get();
        Transport clientNet = null;
        try (Arena arena = Arena.ofShared()) {
            // in-process copies need the one registry of the JVM; the others get a peer of their own
            clientNet = onePeer ? ownerNet : transport.get();
            EmbeddedStoreClient storage = EmbeddedStoreClient.create(master, List.of(ownerNet), "storage", "default",
                    ownerNet.protocol(), clock);
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(clientNet), "client", "default",
                    ownerNet.protocol(), clock);
            storage.mountNewSegment(Math.max(64L << 20, 3 * size), arena);
            MemorySegment src = TransferBenchmark.buffer(arena, size);
            MemorySegment dst = TransferBenchmark.buffer(arena, size);
            src.fill((byte) 7);
            client.registerBuffer(src);
            client.registerBuffer(dst);
            int n = rig.ops(size);
            long[] put = new long[n];
            long[] get = new long[n];
            IntConsumer putGetRemove = i -> {
                String key = "obj-" + i;
                long t0 = System.nanoTime();
                client.putFrom(key, src, ReplicateConfig.DEFAULT);
                long t1 = System.nanoTime();
                client.getInto(key, dst);
                long t2 = System.nanoTime();
                if (i >= 0) {
                    put[i] = t1 - t0;
                    get[i] = t2 - t1;
                }
                jump.addAndGet(MasterSettings.DEFAULTS.defaultLeaseTtlMs() + 1);
                client.remove(key, false);
                master.heartbeat("storage");
            };
            rig.warmUp(Math.max(2, n / 2), i -> putGetRemove.accept(-1 - i)); // negative: not recorded
            for (int i = 0; i < n; i++) {
                putGetRemove.accept(i);
            }
            storage.unmountAll();
            return List.of(TransferBenchmark.result(name, "put", size, put), TransferBenchmark.result(name, "get", size, get));
        } finally {
            if (ownerNet instanceof AutoCloseable c) {
                c.close();
            }
            if (clientNet != ownerNet && clientNet instanceof AutoCloseable c) {
                c.close();
            }
        }
    }
}
