package org.mooncake.osgi.policy.wtinylfu;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/** A candidate as the master would show it, for tests that call the policy directly. */
record TestCandidate(ObjectKey key, long sequence, long sizeBytes, long lastAccessMs, long leaseExpiresAtMs,
        long softPinDeadlineMs) implements CandidateView {
    /** An object whose lease ended at {@code lastAccessMs}, not pinned. */
    static TestCandidate of(String key, long sequence, long sizeBytes, long lastAccessMs) {
        return new TestCandidate(ObjectKey.of(key), sequence, sizeBytes, lastAccessMs, lastAccessMs, 0);
    }

    TestCandidate readAt(long nowMs, long leaseMs) {
        return new TestCandidate(key, sequence, sizeBytes, nowMs, nowMs + leaseMs, softPinDeadlineMs);
    }

    @Override
    public ObjectDataType dataType() {
        return ObjectDataType.KVCACHE;
    }

    @Override
    public double recomputeCostMs() {
        return Double.NaN;
    }

    @Override
    public long putTimeMs() {
        return lastAccessMs;
    }

    @Override
    public long hitCount() {
        return 0;
    }

    @Override
    public String groupId() {
        return null;
    }
}
