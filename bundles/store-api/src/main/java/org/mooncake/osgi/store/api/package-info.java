/**
 * The store's object model and client API: keys, tenants, data types, replicate configuration,
 * error codes numerically compatible with Mooncake's, and {@link org.mooncake.osgi.store.api.StoreClient}.
 *
 * <p>1.3: {@code StoreClient.lookupBatch} and {@code ObjectState}; {@code OBJECT_BEING_WRITTEN}
 * tells a put that met another put in progress from one that met a complete object;
 * {@code ErrorCode.ofCode} answers {@code INTERNAL_ERROR} for a code it does not know instead of
 * throwing; ranged reads move only the checksum chunks they touch.
 * 1.4: device memory ({@code org.mooncake.osgi.store.spi.device}): {@code putFromDevice},
 * {@code upsertFromDevice}, {@code getIntoDevice} (staged through host buffers, checksummed on
 * the host copy), {@code registerDeviceBuffer}/{@code unregisterDeviceBuffer} and
 * {@code mountDeviceSegment} (a segment whose bytes live in device memory).
 * 1.5: {@code ACCESS_DENIED}, the master RPC's refusal of a request the caller's identity may not make.
 */
@Export
@Version("1.5.0")
package org.mooncake.osgi.store.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
