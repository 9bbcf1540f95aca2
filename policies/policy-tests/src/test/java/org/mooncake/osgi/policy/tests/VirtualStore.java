package org.mooncake.osgi.policy.tests;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/** The real master on a clock the test moves, with one segment and the given policies bound (the first preferred). */
final class VirtualStore implements InstantSource {
    static final String CLIENT = "c";
    final AtomicLong now = new AtomicLong(1_000_000);
    final StoreMaster master;
    final long capacity;

    VirtualStore(long capacity, MasterSettings settings, EvictionPolicy... policies) {
        this.capacity = capacity;
        PolicySelector selector = new PolicySelector();
        for (int i = 0; i < policies.length; i++) {
            selector.add(new PolicySelector.Offer(policies[i], policies[i].name(), policies.length - i, i));
        }
        master = new StoreMaster(settings, this, selector);
        master.heartbeat(CLIENT);
        master.mountSegment(new SegmentDescriptor("s", CLIENT, capacity, new SegmentEndpoint("local", "x", "s")));
    }

    VirtualStore(long capacity, EvictionPolicy... policies) {
        this(capacity, MasterSettings.DEFAULTS, policies);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(now.get());
    }

    @Override
    public long millis() {
        return now.get();
    }

    void advance(long ms) {
        now.addAndGet(ms);
    }

    void put(ObjectKey key, long size, ReplicateConfig c) {
        long id = master.putStart(CLIENT, key, size, c, false).putId();
        master.putEnd(CLIENT, key, id, 0);
    }

    void put(String key, long size, ReplicateConfig c) {
        put(ObjectKey.of(key), size, c);
    }

    /** A read: true on a hit (which grants a lease), false on a miss. */
    boolean get(ObjectKey key) {
        try {
            master.getReplicaList(key);
            return true;
        } catch (StoreException miss) {
            return false;
        }
    }

    boolean has(String key) {
        return has(ObjectKey.of(key));
    }

    boolean has(ObjectKey key) {
        return master.queryKey(key).isPresent();
    }

    /**
     * Puts objects {@code tenant/o<from>}, {@code o<from+1>}, ... of {@code size} bytes, a
     * millisecond apart, until {@code fraction} of capacity is used; returns the next index.
     */
    int fill(String tenant, double fraction, int size, ReplicateConfig c, int from) {
        int i = from;
        while (used() < fraction * capacity) {
            put(new ObjectKey(tenant, "o" + i++), size, c);
            advance(1);
        }
        return i;
    }

    long used() {
        return master.stats().usedBytes();
    }
}
