package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * What a reader needs: the complete replicas, the checksum recorded at put (XXH3-64; CRC32C before 2.0), and the instant the
 * read lease ends. A transfer that outlives the lease must be failed with LEASE_EXPIRED.
 */
public record ReadLease(long sizeBytes, long checksum, ObjectDataType dataType, List<ReplicaLocation> replicas,
        long leaseExpiresAtMs) {
}
