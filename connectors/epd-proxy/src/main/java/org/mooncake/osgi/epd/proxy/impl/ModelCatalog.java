package org.mooncake.osgi.epd.proxy.impl;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The models the proxy serves: the static {@code models} list when configured, else the union of
 * what the healthy prefill and decode instances list on {@code GET /v1/models}, reused for
 * {@code models.cache.ms} and until the registry's membership or health changes.
 *
 * <p><b>Threads.</b> Request threads read the volatile cache; the one that finds it stale
 * refreshes it under {@code refreshLock} (the others wait for that refresh rather than send their
 * own), each instance's call bounded by the probe timeout.
 */
final class ModelCatalog {
    private static final System.Logger LOG = System.getLogger(ModelCatalog.class.getName());

    /**
     * A list of models.
     *
     * @param data     the OpenAI model objects, by id, first reporter wins
     * @param answered whether any instance answered: when none did, nothing is known and no model is refused
     */
    record Models(Map<String, JsonNode> data, boolean answered) {
    }

    private record Cached(Models models, long version, long at) {
    }

    private final InstanceRegistry registry;
    private final WorkerClient client;
    private final Supplier<ProxySettings> settings;
    private final LongSupplier nanos;
    private final Object refreshLock = new Object();
    private volatile Cached cached;

    ModelCatalog(InstanceRegistry registry, WorkerClient client, Supplier<ProxySettings> settings, LongSupplier nanos) {
        this.registry = registry;
        this.client = client;
        this.settings = settings;
        this.nanos = nanos;
    }

    /** The models now. */
    Models models() {
        ProxySettings s = settings.get();
        if (!s.models().isEmpty()) {
            Map<String, JsonNode> data = new LinkedHashMap<>();
            for (String m : s.models()) {
                data.put(m, modelObject(m));
            }
            return new Models(data, true);
        }
        Cached c = cached;
        if (fresh(c, s)) {
            return c.models();
        }
        synchronized (refreshLock) {
            c = cached;
            if (fresh(c, s)) {
                return c.models();
            }
            InstanceRegistry.Snapshot snap = registry.snapshot();
            Models m = fetch(snap, s);
            cached = new Cached(m, snap.version(), nanos.getAsLong());
            return m;
        }
    }

    /** Refuses {@code model} (404) when the served models are known and it is not one of them. */
    void check(String model) {
        Models m = models();
        if (m.answered() && !m.data().containsKey(model)) {
            throw ProxyError.modelNotFound(model);
        }
    }

    /** The {@code GET /v1/models} answer. */
    Map<String, Object> listJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("object", "list");
        out.put("data", new ArrayList<>(models().data().values()));
        return out;
    }

    private boolean fresh(Cached c, ProxySettings s) {
        return c != null && c.version() == registry.snapshot().version()
                && nanos.getAsLong() - c.at() < s.modelsCacheTtl().toNanos();
    }

    private Models fetch(InstanceRegistry.Snapshot snap, ProxySettings s) {
        Set<URI> urls = new LinkedHashSet<>();
        snap.healthy(Role.PREFILL).forEach(i -> urls.add(i.url()));
        snap.healthy(Role.DECODE).forEach(i -> urls.add(i.url()));
        List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>();
        for (URI u : urls) {
            calls.add(WorkerClient.within(client.get(u, "/v1/models", s.probeTimeout()), s.probeTimeout()));
        }
        Map<String, JsonNode> data = new LinkedHashMap<>();
        boolean answered = false;
        int i = 0;
        for (URI u : urls) {
            CompletableFuture<HttpResponse<byte[]>> call = calls.get(i++);
            try {
                HttpResponse<byte[]> r = call.join();
                if (r.statusCode() / 100 != 2) {
                    throw new IllegalStateException("HTTP " + r.statusCode());
                }
                JsonNode list = Json.read(r.body()).path("data");
                if (!list.isArray()) {
                    throw new IllegalStateException("no 'data' array");
                }
                answered = true;
                for (JsonNode m : list) {
                    if (m.path("id").isTextual()) {
                        data.putIfAbsent(m.get("id").asText(), m);
                    }
                }
            } catch (Exception e) {
                LOG.log(Level.WARNING, "cannot list the models of {0}: {1}", u, UpstreamFailure.classify(e, Role.PREFILL,
                        null).getMessage());
            }
        }
        return new Models(data, answered);
    }

    private static JsonNode modelObject(String id) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("id", id);
        m.put("object", "model");
        m.put("created", 0);
        m.put("owned_by", "mooncake-epd-proxy");
        return m;
    }
}
