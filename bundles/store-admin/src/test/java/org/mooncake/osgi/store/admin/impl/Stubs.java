package org.mooncake.osgi.store.admin.impl;

import java.lang.reflect.Proxy;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/** Services for the admin's tests: a real master, and sources and clients that say what they are told. */
final class Stubs {
    private Stubs() {
    }

    static MasterService master() {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
    }

    /** A store client that answers isHealthy and transferStats only, as the admin asks no more. */
    static StoreClient client(boolean healthy) {
        return (StoreClient) Proxy.newProxyInstance(Stubs.class.getClassLoader(), new Class<?>[] {StoreClient.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isHealthy" -> healthy;
                    case "transferStats" -> List.of();
                    case "toString" -> "stub client";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    static HealthSource health(String name, Supplier<Health> health) {
        return new HealthSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Health health() {
                return health.get();
            }
        };
    }

    static HealthSource up(String name, Map<String, Object> details) {
        return health(name, () -> Health.up(details));
    }

    static MetricSource metrics(Metric... metrics) {
        return () -> List.of(metrics);
    }

    static Parts parts(MasterService master, StoreClient client, List<MetricSource> metrics, List<HealthSource> health) {
        return new Parts(master, client, List.of(), metrics, health);
    }
}
