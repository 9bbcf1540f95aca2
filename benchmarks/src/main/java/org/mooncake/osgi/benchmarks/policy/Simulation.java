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
 * <p>An access log's puts and removes are real: a put stores a new value over any old one (the
 * master's upsert: new size, type, cost hint and group; the policy is told of a new write), a
 * remove takes the key away at once and frees its bytes as the master does (when the last read's
 * lease ends). A put that finds no room, even after a round, drops the old value too: a later
 * read must not hit what the writer replaced. Freed bytes the master defers are released by its
 * housekeeping, run after each request while any may be due.
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

        /** A put or a remove is about to be served. */
        default void changed(Access access, long timeMs) {
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

    /** Where reads, write-backs, puts and removes go. */
    private interface Store {
        boolean read(Access a);

        /** Stores the value, replacing any; false when there was no room. */
        boolean write(Access a);

        /** Drops the key's value, leased or not; nothing when it holds none. */
        void remove(Access a);
    }

    private static ObjectKey keyOf(Access a) {
        return new ObjectKey(a.tenant(), a.key());
    }

    /** A missing key is no error here: the policy evicted it, or its write found no room. */
    private static void removeFrom(StoreMaster master, Access a) {
        try {
            master.remove(keyOf(a), true);
        } catch (StoreException e) {
            if (e.errorCode() != org.mooncake.osgi.store.api.ErrorCode.OBJECT_NOT_FOUND) {
                throw e;
            }
        }
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
                master.getReplicaList(keyOf(a));
                return true;
            } catch (StoreException miss) {
                return false;
            }
        }

        @Override
        public boolean write(Access a) {
            ObjectKey key = keyOf(a);
            try {
                long id = master.putStart(CLIENT, key, a.sizeBytes(), configOf(a), true).putId();
                master.putEnd(CLIENT, key, id, 0);
                return true;
            } catch (StoreException full) {
                return false;
            }
        }

        @Override
        public void remove(Access a) {
            removeFrom(master, a);
        }
    }

    /** Moves payloads through the client of the default tenant; other tenants' keys are refused. */
    private static final class RealStore implements Store {
        private final StoreMaster master;
        private final EmbeddedStoreClient client;
        private final Map<Long, byte[]> payloads = new HashMap<>();

        RealStore(StoreMaster master, InstantSource clock, long capacity, Arena arena) {
            this.master = master;
            client = EmbeddedStoreClient.create(master, List.of(new LocalTransport()), CLIENT, ObjectKey.DEFAULT_TENANT,
                    "local", clock);
            client.mountNewSegment(capacity, arena);
        }

        private static void requireDefaultTenant(Access a) {
            if (!ObjectKey.DEFAULT_TENANT.equals(a.tenant())) {
                throw new IllegalArgumentException("real-bytes mode replays the default tenant only, not " + a.tenant());
            }
        }

        @Override
        public boolean read(Access a) {
            requireDefaultTenant(a);
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
            requireDefaultTenant(a);
            byte[] payload = payloads.computeIfAbsent(a.sizeBytes(), n -> {
                byte[] b = new byte[Math.toIntExact(n)];
                java.util.Arrays.fill(b, (byte) n.intValue());
                return b;
            });
            try {
                client.upsert(a.key(), payload, configOf(a));
                return true;
            } catch (StoreException full) {
                return false;
            }
        }

        @Override
        public void remove(Access a) {
            requireDefaultTenant(a);
            removeFrom(master, a);
        }
    }

    private static RunResult drive(Workload workload, StoreMaster master, Store store, Clock clock, Settings s,
            AccessObserver observer) {
        RunResult r = new RunResult();
        long housekeepUntil = Long.MIN_VALUE; // deferred frees may be due until the last change's lease has ended
        for (Request req : workload.requests()) {
            clock.now = EPOCH + req.timeMs();
            if (housekeepUntil != Long.MIN_VALUE) { // what came due while the clock jumped
                housekeep(master);
                housekeepUntil = clock.now >= housekeepUntil ? Long.MIN_VALUE : housekeepUntil;
            }
            boolean prefixIntact = true;
            for (Access a : req.accesses()) {
                if (!a.isRead()) {
                    observer.changed(a, req.timeMs());
                    change(a, master, store, r);
                    housekeepUntil = Math.max(housekeepUntil, clock.now + s.leaseMs());
                    continue;
                }
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
                } else if (!writeOrEvict(a, master, store, r)) {
                    r.droppedWrites++;
                    observer.writeBackDropped(a, req.timeMs());
                }
            }
            if (housekeepUntil != Long.MIN_VALUE) { // an overwritten value no read holds is freed now
                housekeep(master);
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

    /** The master's housekeeping, which frees deferred bytes that are due. */
    private static void housekeep(StoreMaster master) {
        master.heartbeat(CLIENT); // the virtual clock jumps: the client must not look dead
        master.runHousekeeping();
    }

    /** Writes {@code a}; when there is no room, runs a round and tries once more. */
    private static boolean writeOrEvict(Access a, StoreMaster master, Store store, RunResult r) {
        if (store.write(a)) {
            return true;
        }
        evict(master, r);
        return store.write(a);
    }

    /** A put or a remove of an access log. */
    private static void change(Access a, StoreMaster master, Store store, RunResult r) {
        if (a.op() == Access.Op.REMOVE) {
            r.removes++;
            store.remove(a);
            return;
        }
        r.puts++;
        if (!writeOrEvict(a, master, store, r)) {
            r.droppedPuts++;
            store.remove(a); // the old value is stale: a later read must miss
        }
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
