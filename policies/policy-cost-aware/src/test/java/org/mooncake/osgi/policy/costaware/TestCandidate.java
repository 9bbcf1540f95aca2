package org.mooncake.osgi.policy.costaware;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/** A candidate as the master would show it, for tests that call the policy directly; its lease ends at its last access. */
record TestCandidate(ObjectKey key, long sequence, ObjectDataType dataType, long sizeBytes, double recomputeCostMs,
        long lastAccessMs, long hitCount, String groupId, boolean groupOnly) implements CandidateView {
    @Override
    public long softPinDeadlineMs() {
        return 0;
    }

    @Override
    public long leaseExpiresAtMs() {
        return lastAccessMs;
    }

    @Override
    public long putTimeMs() {
        return lastAccessMs;
    }
}
