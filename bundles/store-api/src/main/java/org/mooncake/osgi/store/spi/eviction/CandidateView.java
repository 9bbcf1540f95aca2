package org.mooncake.osgi.store.spi.eviction;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A read-only view of one eviction candidate. {@link #leaseExpiresAtMs()} is fixed for the
 * life of the view (it is the index's sort key; a new lease or version gives a new view); last
 * access and hit count may advance while a policy plans, which is why the master re-validates
 * every victim.
 */
@ProviderType
public interface CandidateView {
    ObjectKey key();

    /**
     * {@code key().hashCode()}, which the master keeps at hand: a policy that remembers keys by
     * hash (a ghost list) then need not read the key at all.
     */
    default int keyHash() {
        return key().hashCode();
    }

    /**
     * A number unique to this version of the object, increasing in put-end order: a
     * deterministic tie-break that costs less than comparing keys.
     */
    long sequence();

    ObjectDataType dataType();

    long sizeBytes();

    /** The put's recompute-cost hint in ms; {@link Double#NaN} when none was given. */
    double recomputeCostMs();

    /** 0 when the object was never soft-pinned. */
    long softPinDeadlineMs();

    default boolean softPinnedAt(long nowMs) {
        return softPinDeadlineMs() > nowMs;
    }

    long leaseExpiresAtMs();

    default boolean leasedAt(long nowMs) {
        return leaseExpiresAtMs() > nowMs;
    }

    /** When the object became readable. */
    long putTimeMs();

    /** The last read (or the put when never read). */
    long lastAccessMs();

    /** Reads since the put. */
    long hitCount();

    /** Group or session id from the put; {@code null} for none. */
    String groupId();

    /**
     * The put's hint that only its group will read the object ({@code ReplicateConfig.groupOnly}):
     * once the group has gone quiet for good, so has the object. Since 1.3.
     */
    default boolean groupOnly() {
        return false;
    }
}
