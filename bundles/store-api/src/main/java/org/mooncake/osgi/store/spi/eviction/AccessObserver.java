package org.mooncake.osgi.store.spi.eviction;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a policy that learns online is told. A policy service that also implements this
 * interface hears every event while it is bound, active or not, so a policy swapped in starts
 * warm.
 *
 * <p>The master calls {@link #hit} and {@link #written} on the thread of the operation, while it
 * holds the lock of the object's shard, and {@link #evicted} on the eviction thread, holding no
 * lock, once it has taken the object (a round, in batches: see
 * {@link #evicted(CandidateView[], int, long)}): so a new version's {@code written} may, rarely,
 * come before the old version's {@code evicted}. An implementation must be short, thread-safe and
 * never block (count into adders, hand anything heavier to the eviction thread). Hard-pinned
 * objects are not reported.
 */
@ConsumerType
public interface AccessObserver {
    /**
     * A read found {@code object}. Its counters already include this read;
     * {@code previousAccessMs} is the read or put before it.
     */
    void hit(CandidateView object, long previousAccessMs, long nowMs);

    /** {@code object} became readable: a first put, a write-back after a miss, or an upsert. */
    void written(CandidateView object, long nowMs);

    /** The master evicted {@code object}. */
    void evicted(CandidateView object, long nowMs);

    /**
     * The master evicted {@code victims[0..count)}, in the order it took them: a round tells its
     * victims in batches, after it has taken them, so that an observer that records each one
     * (a ghost list, a model) can do it with one lock and one count per batch instead of per
     * victim. The array is the master's and is reused once this returns. The default tells
     * {@link #evicted(CandidateView, long)} one victim at a time. Since 1.2.
     */
    default void evicted(CandidateView[] victims, int count, long nowMs) {
        for (int i = 0; i < count; i++) {
            evicted(victims[i], nowMs);
        }
    }
}
