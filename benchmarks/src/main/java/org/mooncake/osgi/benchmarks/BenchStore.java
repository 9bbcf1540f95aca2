package org.mooncake.osgi.benchmarks;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * A metadata-only master (segments are descriptors; no bytes move) on a virtual clock, filled
 * with a mix of KV blocks and hidden states the way an EPD deployment fills it.
 */
final class BenchStore implements InstantSource {
    static final long KV_SIZE = 1024;
    static final long HIDDEN_SIZE = 16 * 1024;
    static final ReplicateConfig KV = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
    static final ReplicateConfig HIDDEN = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();

    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final StoreMaster master;

    BenchStore(String policy, long capacityBytes) {
        this(policy, capacityBytes, null);
    }

    /** {@code grantKey}: the segment's key, so that every put-start and get signs a grant (null: none). */
    BenchStore(String policy, long capacityBytes, org.mooncake.osgi.store.master.GrantKey grantKey) {
        PolicySelector selector = new PolicySelector();
        EvictionPolicy p = policy(policy);
        selector.add(new PolicySelector.Offer(p, p.name(), 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, this, selector);
        master.mountSegment(new SegmentDescriptor("bench", "bench-client", capacityBytes,
                java.util.List.of(new SegmentEndpoint("local", "none", "bench")),
                org.mooncake.osgi.store.spi.device.MemoryKind.HOST, grantKey));
    }

    /** A policy of the policy benchmark, configured as it runs there. */
    static EvictionPolicy policy(String name) {
        return org.mooncake.osgi.benchmarks.policy.BenchPolicies.make(name);
    }

    /** Capacity such that {@code objects} of the benchmark mix fill {@code fill} of it. */
    static long capacityFor(int objects, double fill) {
        long bytes = objects / 50 * HIDDEN_SIZE + (objects - objects / 50) * KV_SIZE;
        return (long) (bytes / fill) / 64 * 64;
    }

    /** Puts {@code objects} objects, one in fifty a hidden state, each a millisecond apart. */
    void fill(int objects) {
        put(0, objects, false);
        endLeases();
    }

    /**
     * As {@link #fill}, then ages the store the way serving does, so that a round ranks a real
     * mix: objects belong to sessions of 40 (the group id a connector passes), two thirds of the
     * sessions are read again (a third of them twice) in shuffled order, and four rounds, each
     * followed by puts back to {@code fill} of capacity, have filled part of the policy's ghost
     * list and taught its model. Left {@code fill} full, every lease ended.
     */
    void fillAged(int objects, double fill) {
        int next = put(0, objects, true);
        List<Integer> sessions = new ArrayList<>(IntStream.range(0, objects / 40).boxed().toList());
        Collections.shuffle(sessions, new Random(7));
        for (int pass = 0; pass < 2; pass++) {
            for (int g : sessions) {
                if (g % 3 != 0 && (pass == 0 || g % 3 == 2)) {
                    for (int i = g * 40; i < g * 40 + 40; i++) {
                        master.getReplicaList(ObjectKey.of("obj-" + i));
                    }
                    now.incrementAndGet();
                }
            }
        }
        for (int round = 0; round < 4; round++) {
            endLeases();
            master.runEvictionRound();
            long capacity = master.stats().capacityBytes();
            while (master.stats().usedBytes() < fill * capacity) {
                next = put(next, next + Math.max(1, objects / 2_000), true);
            }
        }
        endLeases();
    }

    /**
     * Puts objects {@code from} to {@code to}, one in fifty a hidden state, each a millisecond
     * apart; {@code inSessions}: in sessions of 40, each its own group id.
     */
    private int put(int from, int to, boolean inSessions) {
        for (int i = from; i < to; i++) {
            boolean hidden = i % 50 == 0;
            ObjectKey k = ObjectKey.of("obj-" + i);
            ReplicateConfig c = !inSessions ? (hidden ? HIDDEN : KV)
                    : ReplicateConfig.builder().dataType(hidden ? ObjectDataType.HIDDEN_STATE : ObjectDataType.KVCACHE)
                            .groupId("s" + i / 40).build();
            long put = master.putStart("bench-client", k, hidden ? HIDDEN_SIZE : KV_SIZE, c, false).putId();
            master.putEnd("bench-client", k, put, i);
            now.incrementAndGet();
        }
        return to;
    }

    /**
     * Puts hidden states of {@code bytes} each until one finds no contiguous space, so that the
     * next round must make room for it. Each that fits stays, and the oldest small objects as
     * large in all are removed for it, so the store stays as full as before and the round's
     * passes evict what they would without the room.
     */
    void wantRoom(long bytes) {
        int oldest = 0;
        for (int i = 0;; i++) {
            ObjectKey k = ObjectKey.of("room-" + i);
            try {
                long put = master.putStart("bench-client", k, bytes, HIDDEN, false).putId();
                master.putEnd("bench-client", k, put, i);
            } catch (org.mooncake.osgi.store.api.StoreException noRoom) {
                return;
            }
            for (long removed = 0; removed < bytes; oldest++) {
                ObjectKey old = ObjectKey.of("obj-" + oldest);
                var meta = master.queryKey(old);
                if (meta.isPresent()) {
                    removed += meta.get().sizeBytes();
                    master.remove(old, false);
                }
            }
            now.incrementAndGet();
        }
    }

    /** Rounds so far that evicted a contiguous range for a put that found none. */
    long roomsMade() {
        return master.roomsMade();
    }

    /** A minute on, past every lease, the client still alive. */
    private void endLeases() {
        now.addAndGet(60_000);
        master.heartbeat("bench-client");
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(now.get());
    }

    @Override
    public long millis() {
        return now.get();
    }
}
