package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.epd.proxy.impl.ChatOutcome.JsonReply;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.metrics.Metric;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The proxy without OSGi or JAX-RS: what each endpoint does, as plain calls. The JAX-RS resource
 * and the tests' fronts only translate HTTP to these.
 *
 * <p><b>Who owns what.</b>
 * <ul>
 * <li>{@code settings}: written by the configuration thread ({@link #update}), read once per
 * request (a volatile of an immutable record: a request sees one whole configuration).</li>
 * <li>The {@link InstanceRegistry}: changed by REST threads, the configuration thread and the
 * probe thread under its own lock; read lock-free from its immutable snapshot.</li>
 * <li>The probe thread: one platform thread of {@code scheduler}, runs {@link #probeOnce} every
 * {@code probe.interval.ms}; the probes themselves are asynchronous.</li>
 * <li>Request threads: the container's; a chat request blocks its thread until the answer is
 * known (see {@link ChatPipeline}); encodes run on virtual threads ({@code virtualThreads}), HTTP
 * callbacks on the {@link WorkerClient}'s virtual threads, each stream's reader on its own.</li>
 * </ul>
 */
final class EpdProxy implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EpdProxy.class.getName());

    private volatile ProxySettings settings;
    private final InstanceRegistry registry = new InstanceRegistry();
    private final WorkerClient client = new WorkerClient();
    private final ProxyMetrics metrics = new ProxyMetrics();
    private final ExecutorService virtualThreads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("epd-proxy-encode-", 0).factory());
    private final ModelCatalog catalog;
    private final ChatPipeline pipeline;
    private final Prober prober;
    private final Object scheduling = new Object();
    private ScheduledExecutorService scheduler; // guarded by scheduling
    private ScheduledFuture<?> probing; // guarded by scheduling

    EpdProxy(ProxySettings settings) {
        this.settings = settings;
        this.catalog = new ModelCatalog(registry, client, () -> this.settings, System::nanoTime);
        this.pipeline = new ChatPipeline(registry, client, catalog, metrics, virtualThreads);
        this.prober = new Prober(registry, client, Clock.systemUTC());
        registry.syncConfigured(settings.workers());
    }

    /** Starts probing every {@code probe.interval.ms} (the first round at once). */
    void start() {
        synchronized (scheduling) {
            if (scheduler == null) {
                scheduler = Executors.newSingleThreadScheduledExecutor(
                        Thread.ofPlatform().daemon().name("epd-proxy-probe").factory());
            }
            schedule(0);
        }
    }

    /** Applies new settings: configured instances synced, probing rescheduled if its interval changed. */
    void update(ProxySettings next) {
        ProxySettings was = settings;
        settings = next;
        registry.syncConfigured(next.workers());
        synchronized (scheduling) {
            if (scheduler != null && !next.probeInterval().equals(was.probeInterval())) {
                schedule(next.probeInterval().toMillis());
            }
        }
        LOG.log(Level.INFO, "EPD proxy settings: {0}", next);
    }

    private void schedule(long initialDelayMs) {
        if (probing != null) {
            probing.cancel(false);
        }
        probing = scheduler.scheduleWithFixedDelay(() -> {
            try {
                probeOnce();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "probe round failed", e);
            }
        }, initialDelayMs, settings.probeInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    ProxySettings settings() {
        return settings;
    }

    InstanceRegistry registry() {
        return registry;
    }

    ProxyMetrics counters() {
        return metrics;
    }

    /** One probe round over every instance, recorded before it returns. */
    void probeOnce() {
        ProxySettings s = settings;
        prober.probeOnce(s.probeTimeout(), s.failThreshold());
    }

    /** {@code POST /v1/chat/completions}. */
    ChatOutcome chat(InputStream body, String contentLength, String clientRequestId) {
        long arrived = System.nanoTime();
        String rid = RequestIds.accept(clientRequestId);
        ProxySettings s = settings;
        byte[] bytes;
        try {
            bytes = BodyLimit.read(body, contentLength, s.maxBodyBytes());
        } catch (ProxyError e) {
            metrics.request(e.outcome);
            return JsonReply.error(e, rid);
        } catch (IOException e) {
            metrics.request("client_disconnected");
            return JsonReply.error(ProxyError.badRequest("cannot read the request body: " + e.getMessage(), null,
                    "invalid_body"), rid);
        }
        return pipeline.chat(bytes, rid, s, arrived);
    }

    /** {@code GET /v1/models}. */
    JsonReply models() {
        return JsonReply.of(200, catalog.listJson());
    }

    /** {@code POST /instances}: 201 and the instance, 200 when that role and URL were registered already, 400 when malformed. */
    JsonReply register(InputStream body) {
        try {
            JsonNode n = Json.read(BodyLimit.read(body, null, 64 * 1024));
            if (n == null || !n.isObject()) {
                throw ProxyError.badRequest("body must be a JSON object {\"role\":..,\"url\":..}", null, "invalid_json");
            }
            Role role;
            URI url;
            try {
                role = Role.parse(n.path("role").asText(null));
            } catch (IllegalArgumentException e) {
                throw ProxyError.badRequest(e.getMessage(), "role", "invalid_value");
            }
            try {
                url = ProxySettings.workerUrl(n.path("url").asText(null));
            } catch (IllegalArgumentException e) {
                throw ProxyError.badRequest(e.getMessage(), "url", "invalid_value");
            }
            InstanceRegistry.Registration r = registry.add(role, url, Instance.FROM_API);
            if (r.created()) {
                LOG.log(Level.INFO, "registered {0} instance {1} at {2}", role.wire, r.instance().id(), url);
            }
            return JsonReply.of(r.created() ? 201 : 200, r.instance().toJson());
        } catch (ProxyError e) {
            return JsonReply.error(e, null);
        } catch (IOException e) {
            return JsonReply.error(ProxyError.badRequest("body is not valid JSON", null, "invalid_json"), null);
        }
    }

    /** {@code GET /instances}. */
    JsonReply instances() {
        List<Object> all = new ArrayList<>();
        registry.snapshot().all().forEach(i -> all.add(i.toJson()));
        return JsonReply.of(200, Map.of("instances", all));
    }

    /** {@code DELETE /instances/{id}}: 204, or 404. */
    JsonReply deregister(String id) {
        if (registry.remove(id)) {
            LOG.log(Level.INFO, "removed instance {0}", id);
            return new JsonReply(204, null, null);
        }
        return JsonReply.error(new ProxyError(404, ProxyError.INVALID_REQUEST, "no instance " + id, "id",
                "instance_not_found", "bad_request"), null);
    }

    /** Up when at least one prefill and one decode instance are healthy. */
    Health health() {
        InstanceRegistry.Snapshot snap = registry.snapshot();
        Map<String, Object> byRole = new LinkedHashMap<>();
        Map<String, Object> healthyCounts = new LinkedHashMap<>();
        Map<Role, List<Object>> lists = new EnumMap<>(Role.class);
        for (Role r : Role.values()) {
            lists.put(r, new ArrayList<>());
            healthyCounts.put(r.wire, snap.healthy(r).size());
        }
        for (Instance i : snap.all()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", i.id());
            m.put("url", i.url().toString());
            m.put("healthy", i.healthy());
            m.put("consecutive_failures", i.consecutiveFailures());
            if (i.lastError() != null) {
                m.put("last_error", i.lastError());
            }
            lists.get(i.role()).add(m);
        }
        lists.forEach((r, l) -> byRole.put(r.wire, l));
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("instances", byRole);
        details.put("healthy", healthyCounts);
        boolean up = !snap.healthy(Role.PREFILL).isEmpty() && !snap.healthy(Role.DECODE).isEmpty();
        if (!up) {
            details.put("reason", snap.healthy(Role.PREFILL).isEmpty() ? "no healthy prefill instance"
                    : "no healthy decode instance");
        }
        return new Health(up, details);
    }

    List<Metric> metrics() {
        return metrics.metrics(registry.snapshot());
    }

    /** Stops probing and aborts every outbound exchange in flight. */
    @Override
    public void close() {
        synchronized (scheduling) {
            if (scheduler != null) {
                scheduler.shutdownNow();
                scheduler = null;
            }
        }
        client.close();
        virtualThreads.shutdownNow();
    }
}
