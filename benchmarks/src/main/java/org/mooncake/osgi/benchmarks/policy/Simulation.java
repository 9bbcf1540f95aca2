package org.mooncake.osgi.benchmarks.policy;

import java.lang.foreign.Arena;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.TypeStats;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.transport.local.LocalTransport;

/**
 * Drives the real master, with the real policy bound, through a workload on a virtual clock. A
 * read that misses writes the object back (continuous operation). The master evicts as it does
 * in production: a round when use passes the high watermark (checked after every request, as
 * the master's 10 ms loop would) or when a put finds no space.
 *
 * <p>Metadata-only mode skips the bytes: segments are descriptors. Real-bytes mode puts and gets
 * real payloads through the embedded client and the in-process transport, checksums included;
 * the two must agree hit for hit.
 */
public final class Simulation {
    /**
     * @param capacityBytes  the segment size
     * @param leaseMs        the read lease
     * @param highWatermark  eviction starts above this use (the seed's benchmark: 0.95)
     * @param evictionRatio  a round frees this share of capacity (0.05)
     * @param realBytes      move real payloads through the client
     */
    public record Settings(long capacityBytes, long leaseMs, double highWatermark, double evictionRatio,
            boolean realBytes) {
        public static Settings of(long capacityBytes) {
            return new Settings(capacityBytes, 1_000, 0.95, 0.05, false);
        }

        public Settings withRealBytes(boolean real) {
            return new Settings(capacityBytes, leaseMs, highWatermark, evictionRatio, real);
        }
    }

    private static final String CLIENT = "bench";
    private static final long EPOCH = 1_000_000_000L;

    /** The virtual clock: a request's time, set before its accesses. */
    private static final class Clock implements InstantSource {
        long now = EPOCH;

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }

        @Override
        public long millis() {
            return now;
        }
    }

    private Simulation() {
    }

    /** Told every access as it is served, in workload order, on the simulating thread. */
    @FunctionalInterface
    public interface AccessObserver {
        void accessed(Access access, boolean hit, long timeMs);

        /** The write-back after {@code access} missed found no room, even after a round. */
        default void writeBackDropped(Access access, long timeMs) {
        }
    }

    public static RunResult run(Workload workload, EvictionPolicy policy, Settings s) {
        return run(workload, policy, s, (a, hit, t) -> {
        });
    }

    public static RunResult run(Workload workload, EvictionPolicy policy, Settings s, AccessObserver observer) {
        Clock clock = new Clock();
        PolicySelector selector = new PolicySelector();
        selector.add(new PolicySelector.Offer(policy, policy.name(), 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS.withLeaseTtl(s.leaseMs())
                .withEviction(s.evictionRatio(), s.highWatermark()), clock, selector);
        try (Arena arena = Arena.ofShared()) {
            Store store = s.realBytes() ? new RealStore(master, clock, s.capacityBytes(), arena)
                    : new MetadataStore(master, s.capacityBytes());
            RunResult r = drive(workload, master, store, clock, s, observer);
            r.learned = new java.util.LinkedHashMap<>(policy.learned()); // the policy's order, for stable JSON
            return r;
        }
    }

    /** Where reads and write-backs go. */
    private interface Store {
        boolean read(Access a);

        /** False when there was no room. */
        boolean write(Access a);
    }

    private static ReplicateConfig configOf(Access a) {
        return ReplicateConfig.builder().dataType(a.type()).recomputeCostMs(a.hintMs()).groupId(a.group())
                .groupOnly(a.groupOnly()).build();
    }

    private record MetadataStore(StoreMaster master, long capacity) implements Store {
        MetadataStore {
            master.heartbeat(CLIENT);
            master.mountSegment(new SegmentDescriptor("sim", CLIENT, capacity, new SegmentEndpoint("local", "none", "sim")));
        }

        @Override
        public boolean read(Access a) {
            try {
                master.getReplicaList(ObjectKey.of(a.key()));
                return true;
            } catch (StoreException miss) {
                return false;
            }
        }

        @Override
        public boolean write(Access a) {
            ObjectKey key = ObjectKey.of(a.key());
            try {
                long id = master.putStart(CLIENT, key, a.sizeBytes(), configOf(a), false).putId();
                master.putEnd(CLIENT, key, id, 0);
                return true;
            } catch (StoreException full) {
                return false;
            }
        }
    }

    private static final class RealStore implements Store {
        private final EmbeddedStoreClient client;
        private final Map<Long, byte[]> payloads = new HashMap<>();

        RealStore(StoreMaster master, InstantSource clock, long capacity, Arena arena) {
            client = EmbeddedStoreClient.create(master, List.of(new LocalTransport()), CLIENT, ObjectKey.DEFAULT_TENANT,
                    "local", clock);
            client.mountNewSegment(capacity, arena);
        }

        @Override
        public boolean read(Access a) {
            try {
                byte[] got = client.get(a.key());
                if (got.length != a.sizeBytes()) {
                    throw new IllegalStateException(a.key() + ": read " + got.length + " bytes, wrote " + a.sizeBytes());
                }
                return true;
            } catch (StoreException miss) {
                return false;
            }
        }

        @Override
        public boolean write(Access a) {
            byte[] payload = payloads.computeIfAbsent(a.sizeBytes(), n -> {
                byte[] b = new byte[Math.toIntExact(n)];
                java.util.Arrays.fill(b, (byte) n.intValue());
                return b;
            });
            try {
                client.put(a.key(), payload, configOf(a));
                return true;
            } catch (StoreException full) {
                return false;
            }
        }
    }

    private static RunResult drive(Workload workload, StoreMaster master, Store store, Clock clock, Settings s,
            AccessObserver observer) {
        RunResult r = new RunResult();
        for (Request req : workload.requests()) {
            clock.now = EPOCH + req.timeMs();
            boolean prefixIntact = true;
            for (Access a : req.accesses()) {
                boolean hit = store.read(a);
                observer.accessed(a, hit, req.timeMs());
                RunResult.PerType t = r.type(a.type());
                t.accesses++;
                t.bytes += a.sizeBytes();
                r.cost += a.costMs();
                if (a.first()) {
                    t.compulsory++;
                    r.compulsoryCost += a.costMs();
                }
                if (a.prefixIndex() >= 0) {
                    r.prefixBlocks++;
                    prefixIntact &= hit;
                    r.prefixHits += prefixIntact ? 1 : 0;
                }
                if (hit) {
                    t.hits++;
                    t.hitBytes += a.sizeBytes();
                    r.hitCost += a.costMs();
                } else if (!store.write(a)) {
                    evict(master, r);
                    if (!store.write(a)) {
                        r.droppedWrites++;
                        observer.writeBackDropped(a, req.timeMs());
                    }
                }
            }
            MasterStats now = master.stats();
            if (now.usedRatio() > s.highWatermark()) {
                evict(master, r);
            }
            r.samples++;
            for (TypeStats ts : now.types()) {
                r.type(ts.dataType()).residentByteSamples += ts.bytes();
            }
        }
        r.capacityBytes = s.capacityBytes();
        MasterStats stats = master.stats();
        r.evictions = stats.types().stream().mapToLong(TypeStats::evictions).sum();
        return r;
    }

    private static void evict(StoreMaster master, RunResult r) {
        long before = master.stats().evictionRounds();
        long t0 = System.nanoTime();
        master.runEvictionRound();
        long took = System.nanoTime() - t0;
        if (master.stats().evictionRounds() > before) {
            r.rounds++;
            r.roundNanosTotal += took;
            r.roundNanosMax = Math.max(r.roundNanosMax, took);
        }
    }
}
