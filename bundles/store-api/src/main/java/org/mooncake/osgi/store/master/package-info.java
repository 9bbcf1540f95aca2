/**
 * The master's service: metadata, allocation, two-phase put, leases, pins and liveness.
 * Clients use it to place and find objects; bytes never pass through it.
 *
 * <p>2.0: the checksum recorded at put is XXH3-64 (a {@code long} named {@code checksum}); it was
 * CRC32C ({@code int crc32c}).
 */
@Export
@Version("2.0.0")
package org.mooncake.osgi.store.master;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
