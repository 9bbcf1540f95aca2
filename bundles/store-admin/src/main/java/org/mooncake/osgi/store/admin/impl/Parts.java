package org.mooncake.osgi.store.admin.impl;

import java.util.List;

import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/**
 * The services one admin request reads, each taken once from its component's dynamic references
 * when the request came, so that a service leaving mid-request changes nothing half-way.
 *
 * @param master null where this process has none (local or remote)
 * @param client null where this process runs no store client
 */
record Parts(MasterService master, StoreClient client, List<EvictionPolicy> policies, List<MetricSource> metricSources,
        List<HealthSource> healthSources) {

    Parts {
        policies = List.copyOf(policies);
        metricSources = List.copyOf(metricSources);
        healthSources = List.copyOf(healthSources);
    }
}
