/**
 * Device memory SPI: memory the CPU cannot address (a GPU's), held as opaque
 * {@link org.mooncake.osgi.store.spi.device.DeviceBuffer}s and moved by a
 * {@link org.mooncake.osgi.store.spi.device.DeviceMemory} service that a device bundle
 * registers only where its driver works (bundle {@code org.mooncake.osgi.device.cuda} for
 * NVIDIA GPUs).
 *
 * <p>How a store client uses it: a transport that cannot address device memory (tcp, shm, ucx
 * without CUDA support) never sees a device pointer. A put of a device-resident payload copies it
 * to a host staging segment ({@code copyToHost}) and puts that; a get lands in a host staging
 * segment and is copied up ({@code copyFromHost}). The object's checksum is therefore computed on
 * the host staging copy, exactly as for a host payload, so a reader on the host and a reader on a
 * device check the same number. Java never dereferences a device address: there is no
 * {@link java.lang.foreign.MemorySegment} over device memory anywhere in this package.
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.store.spi.device;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
