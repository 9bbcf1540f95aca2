package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * A snapshot of the master: capacity and use, per-type counters, eviction rounds, the
 * policy that plans them and the policies that could, and (since 3.0) capacity and use by the
 * memory kind of the segments ({@code memoryKinds}, one entry per kind mounted; empty from an
 * older master). {@link #usedRatio} (all kinds together) is what the eviction watermark compares.
 */
public record MasterStats(long capacityBytes, long usedBytes, long objects, long processingPuts, int segments,
        int clients, List<TypeStats> types, long evictionRounds, long lastEvictionRoundNanos,
        long totalEvictionRoundNanos, long failedPutsNoSpace, String activePolicy,
        List<String> availablePolicies, List<MemoryKindStats> memoryKinds) {

    public MasterStats {
        memoryKinds = memoryKinds == null ? List.of() : List.copyOf(memoryKinds);
    }

    /** Without the figures by memory kind: what store.master 2.x had. */
    public MasterStats(long capacityBytes, long usedBytes, long objects, long processingPuts, int segments,
            int clients, List<TypeStats> types, long evictionRounds, long lastEvictionRoundNanos,
            long totalEvictionRoundNanos, long failedPutsNoSpace, String activePolicy,
            List<String> availablePolicies) {
        this(capacityBytes, usedBytes, objects, processingPuts, segments, clients, types, evictionRounds,
                lastEvictionRoundNanos, totalEvictionRoundNanos, failedPutsNoSpace, activePolicy, availablePolicies,
                List.of());
    }

    public double usedRatio() {
        return capacityBytes == 0 ? 0 : (double) usedBytes / capacityBytes;
    }
}
