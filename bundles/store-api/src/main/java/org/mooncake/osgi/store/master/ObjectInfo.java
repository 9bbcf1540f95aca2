package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/** An administrator's view of one object; reading it grants no lease. */
public record ObjectInfo(ObjectKey key, String state, long sizeBytes, ObjectDataType dataType, int crc32c,
        long putTimeMs, long leaseExpiresAtMs, long softPinDeadlineMs, boolean hardPinned, long hits,
        double recomputeCostMs, String groupId, List<ReplicaLocation> replicas) {
}
