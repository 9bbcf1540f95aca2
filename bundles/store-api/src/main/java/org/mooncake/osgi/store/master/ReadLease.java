package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * What a reader needs: the complete replicas, the checksum recorded at put (XXH3-64; CRC32C
 * before 2.0), and the instant the read lease ends. A transfer that outlives the lease must be
 * failed with LEASE_EXPIRED. {@code chunks}: the per-chunk checksums of an object of more than
 * one chunk (since 2.1), null for an object checked as a whole; {@code checksum} is then
 * their combination (see {@link ChunkChecksums}).
 */
public record ReadLease(long sizeBytes, long checksum, ObjectDataType dataType, List<ReplicaLocation> replicas,
        long leaseExpiresAtMs, ChunkChecksums chunks) {

    public ReadLease {
        if (chunks != null && !chunks.fits(sizeBytes)) {
            throw new IllegalArgumentException(chunks + " do not fit an object of " + sizeBytes + " bytes");
        }
    }

    /** An object checked as a whole: the components of 2.0. */
    public ReadLease(long sizeBytes, long checksum, ObjectDataType dataType, List<ReplicaLocation> replicas,
            long leaseExpiresAtMs) {
        this(sizeBytes, checksum, dataType, replicas, leaseExpiresAtMs, null);
    }
}
