package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * A snapshot of the master: capacity and use, per-type counters, eviction rounds, the
 * policy that plans them and the policies that could.
 */
public record MasterStats(long capacityBytes, long usedBytes, long objects, long processingPuts, int segments,
        int clients, List<TypeStats> types, long evictionRounds, long lastEvictionRoundNanos,
        long totalEvictionRoundNanos, long failedPutsNoSpace, String activePolicy,
        List<String> availablePolicies) {

    public double usedRatio() {
        return capacityBytes == 0 ? 0 : (double) usedBytes / capacityBytes;
    }
}
