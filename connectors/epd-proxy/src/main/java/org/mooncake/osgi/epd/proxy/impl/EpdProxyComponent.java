package org.mooncake.osgi.epd.proxy.impl;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The EPD proxy's lifecycle and configuration: owns one {@link EpdProxy}, publishes its health
 * ({@code proxy} in {@code /health}) and metrics, and hands it to {@link OpenAiResource} and {@link InstancesResource}.
 *
 * <p>A broken configuration at activation fails the activation with the reason logged (the
 * component, and with it the REST resource, stays down until the configuration is fixed); a
 * broken update is refused with the reason logged and the previous settings stay in force.
 */
@Component(service = { EpdProxyComponent.class, HealthSource.class, MetricSource.class }, immediate = true,
        configurationPid = EpdProxyComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = EpdProxyComponent.Config.class)
public final class EpdProxyComponent implements HealthSource, MetricSource {
    public static final String PID = "org.mooncake.osgi.epd.proxy";
    private static final System.Logger LOG = System.getLogger(EpdProxyComponent.class.getName());

    @ObjectClassDefinition(name = "Mooncake EPD proxy",
            description = "OpenAI-compatible control-plane proxy in front of encoder, prefill and decode workers")
    public @interface Config {
        @AttributeDefinition(description = "Encoder base URLs (http://host:port); also registrable at runtime")
        String[] encode_urls() default {};

        @AttributeDefinition(description = "Prefill worker base URLs")
        String[] prefill_urls() default {};

        @AttributeDefinition(description = "Decode worker base URLs")
        String[] decode_urls() default {};

        @AttributeDefinition(description = "Pause between two liveness rounds (GET {url}/health), ms")
        long probe_interval_ms() default 5000;

        @AttributeDefinition(description = "Timeout of one liveness probe (and of one GET /v1/models), ms")
        long probe_timeout_ms() default 2000;

        @AttributeDefinition(description = "Consecutive failed probes after which an instance is unhealthy")
        int fail_threshold() default 3;

        @AttributeDefinition(description = "Timeout of one encode attempt, ms")
        long encode_timeout_ms() default 60000;

        @AttributeDefinition(description = "Timeout of one prefill attempt, ms")
        long prefill_timeout_ms() default 60000;

        @AttributeDefinition(description = "Timeout of one decode attempt: the whole answer, or the first streamed event, ms")
        long decode_timeout_ms() default 300000;

        @AttributeDefinition(description = "Longest silence between two streamed events once streaming started, ms")
        long stream_idle_timeout_ms() default 60000;

        @AttributeDefinition(description = "Largest request body accepted, bytes")
        long max_body_bytes() default ProxySettings.DEFAULT_MAX_BODY_BYTES;

        @AttributeDefinition(description = "Static model list; empty: the union of what the prefill and decode instances report")
        String[] models() default {};

        @AttributeDefinition(description = "How long the union of the workers' models is reused, ms")
        long models_cache_ms() default 10000;
    }

    private final EpdProxy proxy;

    @Activate
    public EpdProxyComponent(Config config) {
        ProxySettings settings;
        try {
            settings = settings(config);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "EPD proxy configuration " + PID + " is invalid, the proxy stays down: {0}",
                    e.getMessage());
            throw e;
        }
        proxy = new EpdProxy(settings);
        proxy.start();
        LOG.log(Level.INFO, "EPD proxy started: {0}", settings);
    }

    /** Applies a changed configuration in place (instances, health and counters are kept); a broken one is refused. */
    @Modified
    void modified(Config config) {
        ProxySettings next;
        try {
            next = settings(config);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "EPD proxy configuration " + PID + " rejected, keeping the previous settings: {0}",
                    e.getMessage());
            return;
        }
        proxy.update(next);
    }

    @Deactivate
    void deactivate() {
        proxy.close();
    }

    EpdProxy proxy() {
        return proxy;
    }

    @Override
    public String name() {
        return "proxy";
    }

    @Override
    public Health health() {
        return proxy.health();
    }

    @Override
    public List<Metric> metrics() {
        return proxy.metrics();
    }

    /** The checked settings of {@code c}; IllegalArgumentException naming the bad property. */
    static ProxySettings settings(Config c) {
        Map<Role, List<java.net.URI>> workers = new EnumMap<>(Role.class);
        workers.put(Role.ENCODE, ProxySettings.urls("encode.urls", c.encode_urls()));
        workers.put(Role.PREFILL, ProxySettings.urls("prefill.urls", c.prefill_urls()));
        workers.put(Role.DECODE, ProxySettings.urls("decode.urls", c.decode_urls()));
        return new ProxySettings(workers, ms(c.probe_interval_ms()), ms(c.probe_timeout_ms()), c.fail_threshold(),
                ms(c.encode_timeout_ms()), ms(c.prefill_timeout_ms()), ms(c.decode_timeout_ms()),
                ms(c.stream_idle_timeout_ms()), c.max_body_bytes(), ProxySettings.names(c.models()),
                ms(c.models_cache_ms()));
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
