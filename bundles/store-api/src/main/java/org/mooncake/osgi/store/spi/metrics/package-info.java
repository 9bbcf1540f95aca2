/**
 * Metrics SPI: a bundle that counts something operators watch (a connector's lookups, a
 * transport's queues) registers a {@link org.mooncake.osgi.store.spi.metrics.MetricSource}
 * service, and the admin endpoint's {@code /metrics} renders it beside the store's own figures in
 * the Prometheus text format. The source only counts; rendering and serving are the admin's.
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.store.spi.metrics;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
