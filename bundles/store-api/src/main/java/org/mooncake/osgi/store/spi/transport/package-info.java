/**
 * Transport SPI: one-sided, batched READ/WRITE between registered local memory and exposed
 * remote segments, with a completion status per request. Shaped so that RDMA and GPU memory fit.
 *
 * <p>1.1: a request may ask for the CRC32C of the memory it moved, a status carries it, and
 * {@link org.mooncake.osgi.store.spi.transport.Checksums} computes it as the store records it.
 * 1.2: {@code Checksums} says whether copy transports here copy and checksum in one pass, and
 * a transport whether it does ({@code Transport.checksumsInOnePass}).
 */
@Export
@Version("1.2.0")
package org.mooncake.osgi.store.spi.transport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
