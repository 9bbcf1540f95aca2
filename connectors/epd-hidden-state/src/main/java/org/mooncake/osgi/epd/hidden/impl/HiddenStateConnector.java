package org.mooncake.osgi.epd.hidden.impl;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.mooncake.osgi.epd.api.ConnectorRole;
import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.EncoderCacheScheduler;
import org.mooncake.osgi.epd.api.EncoderCacheWorker;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.support.ScratchBuffers;
import org.mooncake.osgi.epd.api.support.TensorObjects;
import org.mooncake.osgi.epd.api.support.TransferMeter;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The hidden-state (EC) connector of a process, over its store client. Present only where
 * configured (an encoder, a prefill, an aggregated worker). Look-ups and saves run on virtual
 * threads of its own; loads on the caller's. A new configuration restarts it (DS): nothing it
 * holds outlives a request but answers to look-ups.
 */
@Component(service = {EncoderCacheConnector.class, MetricSource.class}, configurationPid = HiddenStateConnector.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = HiddenStateConnector.Config.class)
public final class HiddenStateConnector implements EncoderCacheConnector, MetricSource {
    public static final String PID = "org.mooncake.osgi.epd.hidden";
    private static final System.Logger LOG = System.getLogger(HiddenStateConnector.class.getName());

    @ObjectClassDefinition(name = "Mooncake EPD hidden-state connector",
            description = "Moves vision-encoder outputs Encoder -> Store -> Prefill")
    public @interface Config {
        @AttributeDefinition(description = "producer (encoder), consumer (prefill) or both (aggregated)")
        String role() default "both";

        @AttributeDefinition(description = "What a failed load does: recompute (the item is encoded here) or fail "
                + "(the request fails; nothing it would have read is used)")
        String load_failure() default "recompute";

        @AttributeDefinition(description = "How long a look-up's answer is used before the store is asked again, ms")
        long lookup_ttl_ms() default 500;

        @AttributeDefinition(description = "How often an item another process is writing is asked about again, ms")
        long writing_recheck_ms() default 20;

        @AttributeDefinition(description = "How long to wait for an item another process is writing before computing "
                + "it here, ms")
        long writing_wait_max_ms() default 10_000;

        @AttributeDefinition(description = "Replicas of each saved hidden state")
        int replicas() default 1;
    }

    private final StoreClient client;
    private final Settings settings;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final TransferMeter meter = new TransferMeter("mooncake_epd_hidden_state");
    private final Map<KeyNamespace, Roles> roles = new ConcurrentHashMap<>();
    private final ScratchBuffers scratch = new ScratchBuffers();
    private final LongSupplier clock;

    private record Roles(EcScheduler scheduler, EcWorker worker) {
    }

    @Activate
    public HiddenStateConnector(Config config, @Reference StoreClient client) {
        this(Settings.of(config), client, System::currentTimeMillis);
        LOG.log(Level.INFO, "hidden-state connector up as {0} (failed loads: {1})", settings.role(),
                settings.recomputeOnLoadFailure() ? "recomputed" : "reported");
    }

    HiddenStateConnector(Settings settings, StoreClient client, LongSupplier clock) {
        TensorObjects.requireLittleEndian();
        this.settings = settings;
        this.client = client;
        this.clock = clock;
    }

    @Override
    public ConnectorRole role() {
        return settings.role();
    }

    private Roles roles(KeyNamespace ns) {
        return roles.computeIfAbsent(ns, n -> {
            ItemStates states = new ItemStates(clock, settings);
            EcScheduler s = new EcScheduler(client, n, states, executor, meter, settings);
            return new Roles(s, new EcWorker(client, n, states, executor, meter, settings, s, scratch));
        });
    }

    @Override
    public EncoderCacheScheduler scheduler(KeyNamespace namespace) {
        return roles(namespace).scheduler();
    }

    @Override
    public EncoderCacheWorker worker(KeyNamespace namespace) {
        return roles(namespace).worker();
    }

    /** What it has counted (tests, and the demo's evidence through /metrics). */
    public TransferMeter meter() {
        return meter;
    }

    @Override
    public List<Metric> metrics() {
        return meter.metrics();
    }

    /** Lets saves under way finish (briefly), then stops. */
    @Deactivate
    void deactivate() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
            LOG.log(Level.WARNING, "hidden-state saves still under way at shutdown were abandoned (their puts are revoked)");
            executor.shutdownNow();
        }
    }
}
