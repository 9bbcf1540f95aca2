package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

/** A real master, the in-process transport and one client with its own segments, on a manual clock. */
final class ClientFixture implements AutoCloseable {
    static final class Clock implements InstantSource {
        /** From the wall clock's now: a tcp segment owner judges the master's grants by its own clock. */
        final AtomicLong ms = new AtomicLong(System.currentTimeMillis());

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(ms.get());
        }

        @Override
        public long millis() {
            return ms.get();
        }
    }

    final Clock clock = new Clock();
    final Arena arena = Arena.ofShared();
    final StoreMaster master;
    final EmbeddedStoreClient client;

    ClientFixture(Transport transport, long... segmentSizes) {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, clock, policies);
        client = EmbeddedStoreClient.create(master, List.of(transport), "c1", "default", transport.protocol(), clock);
        for (long size : segmentSizes) {
            client.mountNewSegment(size, arena);
        }
    }

    ClientFixture(long... segmentSizes) {
        this(new LocalTransport(), segmentSizes);
    }


    /**
     * A grant for all of replica {@code r}, signed with its segment's key as the master signs one:
     * for tests that change a segment's bytes behind the store's back through a transport that
     * checks grants.
     */
    org.mooncake.osgi.store.master.DataGrant grantFor(org.mooncake.osgi.store.master.ReplicaLocation r, boolean write) {
        return org.mooncake.osgi.store.master.DataGrant.sign(client.describe(r.segmentName()).grantKey(), r.segmentName(),
                write, r.offset(), r.sizeBytes(), System.currentTimeMillis() + 60_000);
    }

    @Override
    public void close() {
        arena.close();
    }
}
