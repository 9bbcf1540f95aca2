package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * What the admin endpoints answer, whichever server carries them ({@link AdminHttpServer} on the
 * JDK's server, {@link AdminResource} on the JAX-RS whiteboard): the status, content type and body
 * of {@code health}, {@code metrics}, {@code stats}, {@code query_key} and
 * {@code get_all_segments}, from the services bound when the request came. Errors have one JSON
 * shape ({@link Answer#error}): a store error is 400 with its code, anything else 500.
 */
final class AdminEndpoints {
    static final String HEALTH = "health";
    static final String METRICS = "metrics";
    static final String STATS = "stats";
    static final String QUERY_KEY = "query_key";
    static final String SEGMENTS = "get_all_segments";
    static final List<String> ALL = List.of(HEALTH, METRICS, STATS, QUERY_KEY, SEGMENTS);

    private static final System.Logger LOG = System.getLogger(AdminEndpoints.class.getName());

    private final HealthReport health = new HealthReport();
    private final SourceMetrics sourceMetrics = new SourceMetrics();

    /** The answer to a GET of {@code endpoint} (one of {@link #ALL}) with {@code query}. */
    Answer answer(String endpoint, Map<String, List<String>> query, Parts parts) {
        try {
            return switch (endpoint) {
                case HEALTH -> health.answer(parts);
                case METRICS -> metrics(parts);
                case STATS -> withMaster(parts, m -> {
                    String tenant = Query.single(query, "tenant");
                    return tenant == null ? Answer.json(200, stats(m, parts)) : tenantStats(m, tenant);
                });
                case SEGMENTS -> withMaster(parts, m -> Answer.json(200, m.segments()));
                case QUERY_KEY -> withMaster(parts, m -> queryKey(m, query));
                default -> Answer.error(404, ErrorCode.INVALID_PARAMS, "no admin endpoint /" + endpoint);
            };
        } catch (StoreException e) {
            return Answer.error(400, e.errorCode(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "admin request /" + endpoint + " failed", e);
            return Answer.error(500, ErrorCode.INTERNAL_ERROR, e.toString());
        }
    }

    private interface MasterAnswer {
        Answer answer(MasterService m);
    }

    private static Answer withMaster(Parts p, MasterAnswer a) {
        MasterService m = p.master();
        return m == null ? noMaster() : a.answer(m);
    }

    private static Answer noMaster() {
        return Answer.error(503, ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, "no master in this container");
    }

    /**
     * The store's figures where this process has a master, what its client moved where it has a
     * client, then every metric source. Nothing of these at all is 503, as without a master before.
     */
    private Answer metrics(Parts p) {
        MasterService m = p.master();
        if (m == null && p.client() == null && p.metricSources().isEmpty()) {
            return noMaster();
        }
        StringBuilder b = new StringBuilder(PrometheusFormat.render(m == null ? null : m.stats(), learned(p),
                Checksums.copiesInOnePass(), transfers(p)));
        sourceMetrics.render(b, SourceMetrics.familiesIn(b.toString()), p.metricSources());
        return new Answer(200, PrometheusFormat.CONTENT_TYPE, b.toString());
    }

    private static Map<String, Object> stats(MasterService m, Parts p) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("master", m.stats());
        body.put("segments", m.segments());
        body.put("learned", learned(p));
        body.put("checksummedCopy", Map.of("onePass", Checksums.copiesInOnePass(), "how", Checksums.copyPath()));
        body.put("transfers", transfers(p));
        return body;
    }

    /**
     * Objects and bytes of one tenant ({@code /stats?tenant=T}), after the access check. A master
     * in another process cannot say (the master RPC carries no per-tenant figures): 501 naming
     * where to ask.
     */
    private static Answer tenantStats(MasterService m, String tenant) {
        ObjectKey.validateTenant(tenant);
        return m.tenantStats(tenant).map(t -> Answer.json(200, t)).orElseGet(() -> Answer.error(501,
                ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, "this process's master cannot count one tenant's objects;"
                        + " ask the master process's /stats?tenant=" + tenant));
    }

    private static Answer queryKey(MasterService m, Map<String, List<String>> query) {
        String key = Query.single(query, "key");
        if (key == null) {
            return Answer.error(400, ErrorCode.INVALID_PARAMS, "query parameter 'key' is required");
        }
        String tenant = Query.single(query, "tenant");
        ObjectKey k = new ObjectKey(tenant == null ? ObjectKey.DEFAULT_TENANT : tenant, key);
        var info = m.queryKey(k);
        return info.isEmpty() ? Answer.error(404, ErrorCode.OBJECT_NOT_FOUND, "no object " + k) : Answer.json(200, info.get());
    }

    /** What this process's client has moved, by protocol; empty without a client. */
    private static List<TransferStats> transfers(Parts p) {
        StoreClient c = p.client();
        return c == null ? List.of() : c.transferStats();
    }

    /**
     * What each registered policy has learned, by name, finite figures only; a policy that fails
     * to say is logged and left out.
     */
    private static Map<String, Map<String, Double>> learned(Parts p) {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        for (EvictionPolicy policy : p.policies()) {
            try {
                Map<String, Double> figures = new LinkedHashMap<>();
                policy.learned().forEach((k, v) -> {
                    if (v != null && Double.isFinite(v)) {
                        figures.put(k, v);
                    }
                });
                if (!figures.isEmpty()) {
                    out.put(policy.name(), figures);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "policy " + policy.name() + " could not tell what it has learned", e);
            }
        }
        return out;
    }
}
