package org.mooncake.osgi.store.spi.eviction;

import java.util.Iterator;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The evictable objects of one tenant and data type (never hard-pinned, never mid-put), kept by
 * the master in lease order so a round reads only as far as it needs.
 */
@ProviderType
public interface CandidateGroup {
    String tenant();

    ObjectDataType dataType();

    /** Objects in the group, leased or not. */
    long objectCount();

    long bytes();

    /** Candidates, oldest lease first; leased ones come last. Weakly consistent, never throws. */
    Iterator<CandidateView> inLeaseOrder();

    /** Candidates whose lease has ended at {@code nowMs}. Walks the expired prefix: O(result). */
    default long evictableCount(long nowMs) {
        long n = 0;
        for (Iterator<CandidateView> it = inLeaseOrder(); it.hasNext() && !it.next().leasedAt(nowMs);) {
            n++;
        }
        return n;
    }
}
