package org.mooncake.osgi.store.spi.eviction;

import java.util.List;

/**
 * One eviction pass. The master evicts the planned victims in order, skipping any that fail
 * re-validation, until {@code targetBytes} are freed.
 *
 * @param nowMs           the master's clock
 * @param pass            1: soft-pinned objects are off limits; 2: they may be planned too
 * @param capacityBytes   total bytes of all mounted segments
 * @param usedBytes       bytes allocated now
 * @param targetBytes     bytes the master wants freed in this pass
 * @param targetFraction  the target as a fraction of capacity (upstream's ratio)
 * @param groups          candidates by tenant and data type
 */
public record EvictionRequest(long nowMs, int pass, long capacityBytes, long usedBytes, long targetBytes,
        double targetFraction, List<CandidateGroup> groups) {

    public boolean softPinnedAllowed() {
        return pass >= 2;
    }

    /** Whether a candidate may be planned in this pass at all. */
    public boolean eligible(CandidateView c) {
        return !c.leasedAt(nowMs) && (softPinnedAllowed() || !c.softPinnedAt(nowMs));
    }
}
