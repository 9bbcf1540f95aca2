/**
 * Transport SPI: one-sided, batched READ/WRITE between registered local memory and exposed
 * remote segments, with a completion status per request. Shaped so that RDMA and GPU memory fit.
 *
 * <p>1.1: a request may ask for the checksum of the memory it moved, a status carries it, and
 * {@code Checksums} computes it as the store records it.
 * 1.2: {@code Checksums} says whether copy transports here copy and checksum in one pass, and
 * a transport whether it does ({@code Transport.checksumsInOnePass}).
 * 2.0: the checksum is XXH3-64, not CRC32C: {@code Checksums.of} and {@code TransferStatus.checksum}
 * are {@code long}s (a fused copy with XXH3 costs 1.3x a bare copy at 64 KiB, with CRC32C 1.9x).
 * 2.1: a request may ask for one checksum per chunk ({@code TransferRequest.checksumChunkBytes}),
 * reported in {@code TransferStatus.chunkChecksums}; {@code Checksums.ofChunks} computes them.
 * 3.0: copies, checksums and huge pages moved to org.mooncake.osgi.store.memory (bundle
 * store-memory): {@code MemoryCopy}, {@code Checksums} and {@code HugePages} are gone from here,
 * and {@code Transport.allocateSegment}'s default no longer uses huge pages; {@code Transport.cost}
 * rates endpoints; {@code Transport.servesDeviceMemory} and {@code Transport.exposeDevice} let a
 * transport serve segments whose bytes live in device memory ({@code org.mooncake.osgi.store.spi.device}).
 * 3.1: requests carry the master's {@code DataGrant} ({@code TransferRequest.grant}), and
 * {@code Transport.expose} may take the segment's {@code GrantKey} to check them with.
 */
@Export
@Version("3.1.0")
package org.mooncake.osgi.store.spi.transport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
