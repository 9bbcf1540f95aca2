/**
 * What connector implementations share beyond the contract: writing and reading tensor objects
 * ({@link org.mooncake.osgi.epd.api.support.TensorObjects}) and counting transfers for
 * {@code /metrics} ({@link org.mooncake.osgi.epd.api.support.TransferMeter}).
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.epd.api.support;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
