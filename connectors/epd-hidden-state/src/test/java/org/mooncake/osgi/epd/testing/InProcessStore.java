package org.mooncake.osgi.epd.testing;

import java.lang.foreign.Arena;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

/**
 * A real master on a manual clock, one in-process transport, and clients of it: the store that
 * connector tests run against. A storage client contributes the segment; other clients are
 * pure clients, as an encoder or a prefill worker is. A "kill" abandons a client without
 * leaving, so that the master's liveness timeout decides, as it would for a dead process.
 */
public final class InProcessStore implements AutoCloseable {
    /** Milliseconds moved by hand. */
    public static final class Clock implements InstantSource {
        private final AtomicLong ms = new AtomicLong(1_000_000);

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(ms.get());
        }

        @Override
        public long millis() {
            return ms.get();
        }

        public void advance(long by) {
            ms.addAndGet(by);
        }
    }

    /** Liveness timeout of the test master: short, as the issue asks of connector tests. */
    public static final long CLIENT_TTL_MS = 2_000;

    public final Clock clock = new Clock();
    public final StoreMaster master;
    public final Transport transport = new LocalTransport();
    public final EmbeddedStoreClient storage;
    private final Arena arena = Arena.ofShared();
    private final List<EmbeddedStoreClient> clients = new ArrayList<>();

    public InProcessStore(long segmentBytes) {
        this(segmentBytes, MasterSettings.DEFAULTS);
    }

    public InProcessStore(long segmentBytes, MasterSettings settings) {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        MasterSettings s = new MasterSettings(settings.defaultLeaseTtlMs(), settings.defaultSoftPinTtlMs(),
                settings.maxSoftPinTtlMs(), settings.allowEvictSoftPinned(), settings.evictionRatio(),
                settings.highWatermark(), CLIENT_TTL_MS, settings.putStartDiscardTimeoutMs(),
                settings.putStartReleaseTimeoutMs(), settings.allocationStrategy(), settings.shards(),
                settings.preferredPolicy(), settings.hiddenState());
        master = new StoreMaster(s, clock, policies);
        storage = client("storage", "default");
        storage.mountNewSegment(segmentBytes, arena);
    }

    /** A client of {@code tenant} that contributes no segment (an E, P or D worker's). */
    public EmbeddedStoreClient client(String id, String tenant) {
        EmbeddedStoreClient c = EmbeddedStoreClient.create(master, List.of(transport), id, tenant, "local", clock);
        c.heartbeat();
        clients.add(c);
        return c;
    }

    /** Time passes: every client but those {@code dead} heartbeats, and the master keeps house. */
    public void pass(long ms, EmbeddedStoreClient... dead) {
        clock.advance(ms);
        for (EmbeddedStoreClient c : clients) {
            if (!List.of(dead).contains(c)) {
                c.heartbeat();
            }
        }
        master.runHousekeeping();
    }

    @Override
    public void close() {
        storage.unmountAll();
        arena.close();
    }
}
