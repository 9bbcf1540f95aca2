/**
 * The master's service: metadata, allocation, two-phase put, leases, pins and liveness.
 * Clients use it to place and find objects; bytes never pass through it.
 *
 * <p>2.0: the checksum recorded at put is XXH3-64 (a {@code long} named {@code checksum}); it was
 * CRC32C ({@code int crc32c}).
 *
 * <p>2.1: {@code lookupBatch}; per-chunk checksums ({@code ChunkChecksums}) at put-end and in a
 * read lease, for ranged reads that move only what they need; a put that meets one in progress is
 * {@code OBJECT_BEING_WRITTEN}; a client that leaves or is declared dead has its unfinished puts
 * revoked at once.
 *
 * <p>3.0: {@code ChunkChecksums.combined} is gone (an API type computed a checksum through the
 * implementation): Checksums.combine in org.mooncake.osgi.store.memory (bundle store-memory)
 * computes it. Segments have a memory kind ({@code SegmentDescriptor.memoryKind},
 * {@code SegmentStats.memoryKind}: HOST, or device memory such as CUDA_DEVICE; a descriptor
 * without one is HOST), and {@code MasterStats.memoryKinds} ({@code MemoryKindStats}) reports
 * capacity and use per kind.
 *
 * <p>3.1: data-path grants: a segment's owner may mount it with a {@code GrantKey}
 * ({@code SegmentDescriptor.grantKey}); the master then signs a {@code DataGrant} for each replica
 * it hands out ({@code ReplicaLocation.grant}: READ in a read lease, WRITE in a put ticket).
 * {@code MasterService.tenantStats}: one tenant's objects, bytes and puts in progress.
 */
@Export
@Version("3.1.0")
package org.mooncake.osgi.store.master;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
