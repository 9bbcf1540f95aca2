package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * An administrator's view of one object; reading it grants no lease. {@code groupOnly} is the
 * put's hint that only its group reads it (since 1.1).
 */
public record ObjectInfo(ObjectKey key, String state, long sizeBytes, ObjectDataType dataType, long checksum,
        long putTimeMs, long leaseExpiresAtMs, long softPinDeadlineMs, boolean hardPinned, long hits,
        double recomputeCostMs, String groupId, boolean groupOnly, List<ReplicaLocation> replicas) {

    /** Without the group-only hint: the components of 1.0. */
    public ObjectInfo(ObjectKey key, String state, long sizeBytes, ObjectDataType dataType, long checksum,
            long putTimeMs, long leaseExpiresAtMs, long softPinDeadlineMs, boolean hardPinned, long hits,
            double recomputeCostMs, String groupId, List<ReplicaLocation> replicas) {
        this(key, state, sizeBytes, dataType, checksum, putTimeMs, leaseExpiresAtMs, softPinDeadlineMs, hardPinned, hits,
                recomputeCostMs, groupId, false, replicas);
    }
}
