/**
 * For tests: {@link org.mooncake.osgi.device.testing.HostBackedDeviceMemory}, a simulated device
 * whose memory is host memory behind opaque addresses, so that code using
 * {@link org.mooncake.osgi.store.spi.device.DeviceMemory} is tested on machines without a GPU.
 * Not for production: nothing registers it as a service.
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.device.testing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
