package org.mooncake.osgi.benchmarks;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

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
        PolicySelector selector = new PolicySelector();
        EvictionPolicy p = policy(policy);
        selector.add(new PolicySelector.Offer(p, p.name(), 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, this, selector);
        master.mountSegment(new SegmentDescriptor("bench", "bench-client", capacityBytes,
                new SegmentEndpoint("local", "none", "bench")));
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
        for (int i = 0; i < objects; i++) {
            boolean hidden = i % 50 == 0;
            ObjectKey k = ObjectKey.of("obj-" + i);
            long put1 = master.putStart("bench-client", k, hidden ? HIDDEN_SIZE : KV_SIZE, hidden ? HIDDEN : KV, false).putId();
            master.putEnd("bench-client", k, put1, i);
            now.incrementAndGet();
        }
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
