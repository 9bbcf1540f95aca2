/**
 * Memory for transports and clients: one-sided copies for transports that can map the target
 * segment ({@link org.mooncake.osgi.store.memory.MemoryCopy}), the checksum the store records,
 * XXH3-64, computed alone or beside a copy, through the native copy kernel where it runs
 * ({@link org.mooncake.osgi.store.memory.Checksums}), and segment memory on transparent huge pages
 * ({@link org.mooncake.osgi.store.memory.HugePages}), and which host this is, so transports that
 * share memory between processes know who can ({@link org.mooncake.osgi.store.memory.HostIdentity}).
 *
 * <p>1.0.0: moved from {@code org.mooncake.osgi.store.spi.transport} 2.1 (bundle store-api), whose
 * history it carries: a checksum per request (1.1), one-pass copies (1.2), XXH3-64 instead of
 * CRC32C (2.0), per-chunk checksums (2.1); {@code HugePages} was internal there and is public here,
 * for transports that allocate their segments with it; {@code Checksums.combine} replaces
 * {@code ChunkChecksums.combined} (store.master 2.1).
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.store.memory;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
