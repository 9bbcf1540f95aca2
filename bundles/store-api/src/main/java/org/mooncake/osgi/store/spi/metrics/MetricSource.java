package org.mooncake.osgi.store.spi.metrics;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Figures for {@code /metrics}. Register as an OSGi service; the admin endpoint reads every
 * source once per scrape, on its HTTP thread, so {@link #metrics} must return at once (read
 * counters, never wait for I/O). Names should start with {@code mooncake_} and follow
 * Prometheus' conventions (base units, {@code _total} for counters).
 */
@ConsumerType
public interface MetricSource {

    /** The current value of every metric of this source. */
    List<Metric> metrics();
}
