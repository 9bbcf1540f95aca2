package org.mooncake.osgi.store.console.impl;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * What the page shows, read once per request from the services bound then: the master's figures
 * and segments (null and empty in a process without a master), what the active policy says about
 * itself and has learned, and what this process's client has moved (empty without a client).
 */
record StoreView(MasterStats stats, List<SegmentStats> segments, ActivePolicy policy, boolean hasClient,
        List<TransferStats> transfers) {
    private static final System.Logger LOG = System.getLogger(StoreView.class.getName());

    /** The policy planning the rounds: its settings as it describes them, and its learned figures (finite only). */
    record ActivePolicy(String name, String settings, Map<String, Double> learned) {
    }

    static StoreView read(MasterService master, StoreClient client, List<EvictionPolicy> policies) {
        MasterStats stats = master == null ? null : master.stats();
        List<SegmentStats> segments = master == null ? List.of() : master.segments();
        List<TransferStats> transfers = client == null ? List.of() : client.transferStats();
        ActivePolicy active = stats == null ? null : active(stats.activePolicy(), policies);
        return new StoreView(stats, segments, active, client != null, transfers);
    }

    private static ActivePolicy active(String name, List<EvictionPolicy> policies) {
        for (EvictionPolicy p : policies) {
            if (p.name().equals(name)) {
                try {
                    Map<String, Double> learned = new LinkedHashMap<>();
                    p.learned().forEach((k, v) -> {
                        if (v != null && Double.isFinite(v)) {
                            learned.put(k, v);
                        }
                    });
                    return new ActivePolicy(name, p.describe(), learned);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "policy " + name + " could not describe itself", e);
                    return new ActivePolicy(name, name, Map.of());
                }
            }
        }
        // a master in another process: its policy is not a service here
        return new ActivePolicy(name, name, Map.of());
    }
}
