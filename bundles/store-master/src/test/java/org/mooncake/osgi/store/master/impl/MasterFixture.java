package org.mooncake.osgi.store.master.impl;

import java.util.List;

import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/** A master on a manual clock with the default policy bound, and shorthands for tests. */
final class MasterFixture {
    final ManualClock clock = new ManualClock();
    final PolicySelector policies = new PolicySelector();
    final StoreMaster master;

    MasterFixture() {
        this(MasterSettings.DEFAULTS);
    }

    MasterFixture(MasterSettings settings) {
        this(settings, new LeaseOrderPolicy());
    }

    MasterFixture(MasterSettings settings, EvictionPolicy policy) {
        master = new StoreMaster(settings, clock, policies);
        if (policy != null) {
            policies.add(new PolicySelector.Offer(policy, policy.name(), 0, 1));
        }
    }

    void mount(String client, String segment, long size) {
        master.mountSegment(new SegmentDescriptor(segment, client, size,
                new SegmentEndpoint("local", "in-process", segment)));
    }

    List<ReplicaLocation> put(String key, long size) {
        return put(key, size, ReplicateConfig.DEFAULT);
    }

    List<ReplicaLocation> put(String key, long size, ReplicateConfig config) {
        PutTicket t = master.putStart("c1", ObjectKey.of(key), size, config, false);
        master.putEnd("c1", ObjectKey.of(key), t.putId(), 42);
        return t.replicas();
    }

    static ObjectKey k(String key) {
        return ObjectKey.of(key);
    }
}
