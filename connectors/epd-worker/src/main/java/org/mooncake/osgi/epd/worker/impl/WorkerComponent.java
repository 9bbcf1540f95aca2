package org.mooncake.osgi.epd.worker.impl;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.KvCacheConnector;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A reference EPD worker: serves its models as encoder, prefill, decode or aggregated, through
 * the connectors bound in this process (dynamic: a connector that goes makes the worker
 * unhealthy, and its requests 503, until it is back). Its HTTP resources are {@link ChatResource}
 * and {@link ProbeResource}; its part of {@code /health} is "worker". Started only where
 * configured; a new configuration restarts it (the models are rebuilt).
 */
@Component(service = {WorkerComponent.class, HealthSource.class, MetricSource.class},
        configurationPid = WorkerComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = WorkerComponent.Config.class)
public final class WorkerComponent implements HealthSource, MetricSource, Connectors {
    public static final String PID = "org.mooncake.osgi.epd.worker";
    private static final System.Logger LOG = System.getLogger(WorkerComponent.class.getName());

    @ObjectClassDefinition(name = "Mooncake EPD reference worker")
    public @interface Config {
        @AttributeDefinition(description = "encoder, prefill, decode or aggregated")
        String role();

        @AttributeDefinition(description = "Models served, name@revision=size:seed (size tiny or demo; the seed is "
                + "the weights' revision); commas or spaces between several")
        String[] models() default {"mooncake-vl@r1=demo:1"};

        @AttributeDefinition(description = "Prefix of every key this worker's connectors use (a deployment's cache "
                + "namespace)")
        String key_prefix() default "";

        @AttributeDefinition(description = "Longest a request may take before it is answered 504, ms")
        long request_timeout_ms() default 120_000;

        @AttributeDefinition(description = "Largest request body accepted, bytes (base64 media is large)")
        long max_body_bytes() default 64L << 20;

        @AttributeDefinition(description = "Largest media file fetched from an http(s) URL, bytes")
        long media_max_bytes() default 32L << 20;

        @AttributeDefinition(description = "Timeout of a media fetch from an http(s) URL, ms")
        long media_fetch_timeout_ms() default 10_000;

        @AttributeDefinition(description = "Run each model once at start, so that the first request does not pay "
                + "for the JIT compiler's warm-up")
        boolean warmup() default true;
    }

    private final WorkerRole role;
    private final Map<String, ServedModel> models;
    private final WorkerMetrics metrics = new WorkerMetrics();
    private final Engine engine;
    private final Worker worker;
    private final long maxBody;
    private volatile boolean warm;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile EncoderCacheConnector hiddenStates;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile KvCacheConnector kv;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile StoreClient client;

    @Activate
    public WorkerComponent(Config config) {
        this.role = WorkerRole.parse(config.role());
        this.models = ServedModel.parse(config.models(), config.key_prefix());
        this.maxBody = config.max_body_bytes();
        MediaFetcher fetcher = new MediaFetcher(config.media_max_bytes(), Duration.ofMillis(config.media_fetch_timeout_ms()));
        this.engine = new Engine(role, this, metrics, fetcher);
        this.worker = new Worker(role, models, engine, fetcher, metrics, config.request_timeout_ms());
        if (config.warmup()) {
            Thread.ofVirtual().name("epd-worker-warmup").start(this::warmUp);
        } else {
            warm = true;
        }
        LOG.log(Level.INFO, "EPD worker up as {0}, serving {1}", role.label(), String.join(", ", models.keySet()));
    }

    /** Runs each model on a small synthetic image and a few tokens, off the request path; health says "warming" meanwhile. */
    private void warmUp() {
        long start = System.nanoTime();
        try {
            Warmup.run(models.values());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "warm-up failed (requests will warm up the JIT instead)", e);
        }
        warm = true;
        LOG.log(Level.INFO, "EPD worker warmed up in {0} ms", (System.nanoTime() - start) / 1_000_000);
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        engine.close();
    }

    Worker worker() {
        return worker;
    }

    @Override
    public EncoderCacheConnector hiddenStates() {
        return hiddenStates;
    }

    @Override
    public KvCacheConnector kv() {
        return kv;
    }

    byte[] readBody(InputStream in) throws IOException {
        byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
        if (b.length > maxBody) {
            throw new ApiError(413, "invalid_request_error", "request_too_large", null,
                    "the body is larger than " + maxBody + " bytes");
        }
        return b;
    }

    /** {@code POST /epd/probe}: plain store puts and gets through this worker's client. */
    Worker.Json probe(InputStream body) {
        try {
            JsonNode q = Replies.JSON.readTree(readBody(body));
            StoreClient c = client;
            if (c == null) {
                throw ApiError.server(503, "no_store_client", "this worker has no store client");
            }
            return new Worker.Json(200, StoreProbe.run(c, q.path("bytes").asLong(0), q.path("count").asInt(1),
                    Math.min(10_000, Math.max(0, q.path("gap_ms").asLong(0)))));
        } catch (ApiError e) {
            return new Worker.Json(e.status, Replies.error(e));
        } catch (IOException e) {
            return new Worker.Json(400, Replies.error(ApiError.badRequest("invalid_json", null, e.getMessage())));
        } catch (StoreException e) {
            return new Worker.Json(502, Replies.error(ApiError.server(502, "store_error", e.getMessage())));
        }
    }

    @Override
    public String name() {
        return "worker";
    }

    /** Up when warm and every connector the role needs is bound (its store client's health is the admin's part). */
    @Override
    public Health health() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("role", role.label());
        d.put("models", List.copyOf(models.keySet()));
        d.put("warm", warm);
        EncoderCacheConnector ec = hiddenStates;
        KvCacheConnector k = kv;
        d.put("hidden_state_connector", ec == null ? "absent" : ec.role().name().toLowerCase(java.util.Locale.ROOT));
        d.put("kv_connector", k == null ? "absent" : k.role().name().toLowerCase(java.util.Locale.ROOT));
        String missing = role.hiddenStates && ec == null ? "the hidden-state connector"
                : role.kv && k == null ? "the KV connector" : null;
        if (missing != null) {
            d.put("reason", "a " + role.label() + " needs " + missing);
        }
        return new Health(warm && missing == null, d);
    }

    @Override
    public List<Metric> metrics() {
        return metrics.metrics();
    }
}
