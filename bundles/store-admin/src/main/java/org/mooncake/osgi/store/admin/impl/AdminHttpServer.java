package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.transport.Checksums;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The admin endpoint on the JDK's own HTTP server: four read-only resources need no servlet
 * container, and so no Jetty, slf4j or SPI Fly in the runtime. Requests run on virtual threads;
 * the master and client references are read once per request.
 */
@Component(service = {}, immediate = true, configurationPid = AdminHttpServer.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = AdminHttpServer.Config.class)
public final class AdminHttpServer {
    public static final String PID = "org.mooncake.osgi.store.admin.http";
    private static final System.Logger LOG = System.getLogger(AdminHttpServer.class.getName());

    @ObjectClassDefinition(name = "Mooncake admin HTTP endpoint")
    public @interface Config {
        @AttributeDefinition(description = "TCP port; 0 picks a free one (logged)")
        int port() default 9003;

        @AttributeDefinition(description = "Address to bind")
        String bind_address() default "0.0.0.0";
    }

    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** Replaced by {@link #modified}; read by {@link #port}. */
    private volatile HttpServer server;
    private volatile Address served;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile MasterService master;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile StoreClient client;

    /** The policies registered in this container, for what they have learned. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<EvictionPolicy> policies = List.of();

    @Activate
    public AdminHttpServer(Config config) throws IOException {
        Address at = Address.of(config);
        server = serve(at);
    }

    /** Where the endpoint listens: checked before anything is bound. */
    record Address(String bind, int port) {
        /** Reads and checks {@code config}; a value that is no number fails here, with its text. */
        static Address of(Config config) {
            Address a = new Address(config.bind_address(), config.port());
            if (a.port < 0 || a.port > 65535) {
                throw new IllegalArgumentException("port must be 0 to 65535, was " + a.port);
            }
            return a;
        }
    }

    private HttpServer serve(Address at) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(at.bind(), at.port()), 64);
        s.setExecutor(executor);
        s.createContext("/health", this::health);
        s.createContext("/metrics", ex -> withMaster(ex, m -> send(ex, 200, PrometheusFormat.CONTENT_TYPE,
                PrometheusFormat.render(m.stats(), learned(), Checksums.copiesInOnePass(), transfers()))));
        s.createContext("/stats", ex -> withMaster(ex, m -> sendJson(ex, 200, Map.of("master", m.stats(),
                "segments", m.segments(), "learned", learned(), "checksummedCopy",
                Map.of("onePass", Checksums.copiesInOnePass(), "how", Checksums.copyPath()), "transfers", transfers()))));
        s.createContext("/get_all_segments", ex -> withMaster(ex, m -> sendJson(ex, 200, m.segments())));
        s.createContext("/query_key", ex -> withMaster(ex, m -> queryKey(ex, m)));
        s.start();
        served = at;
        LOG.log(Level.INFO, "admin endpoint on http://{0}:{1}/", at.bind(), String.valueOf(s.getAddress().getPort()));
        return s;
    }

    /**
     * A changed configuration moves the endpoint; a broken one, or an address that cannot be
     * bound, is refused with its reason and the endpoint stays where it was (operators watch it
     * through the change). Without this DS would stop the endpoint, and a broken file would
     * leave none. Called by DS, one change at a time.
     */
    @Modified
    void modified(Config config) {
        Address next;
        try {
            next = Address.of(config);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected admin endpoint configuration, still serving on port {0}: {1}",
                    String.valueOf(port()), FrameworkLog.line(null, e));
            return;
        }
        if (next.equals(served)) {
            return;
        }
        Address was = served;
        HttpServer old = server;
        boolean samePort = next.port() != 0 && next.port() == port();
        if (samePort) {
            old.stop(0); // the new address needs this port
        }
        try {
            server = serve(next);
            if (!samePort) {
                old.stop(0);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "cannot serve the admin endpoint on {0}:{1} ({2}); keeping {3}:{4}", next.bind(),
                    String.valueOf(next.port()), e.toString(), was.bind(), String.valueOf(was.port()));
            if (samePort) {
                try {
                    server = serve(was);
                } catch (IOException | RuntimeException again) {
                    LOG.log(Level.ERROR, "the admin endpoint is down: its old address failed too", again);
                }
            }
        }
    }

    /**
     * What each registered policy has learned, by name, finite figures only; a policy that fails
     * to say is logged and left out.
     */
    private Map<String, Map<String, Double>> learned() {
        Map<String, Map<String, Double>> out = new java.util.TreeMap<>();
        for (EvictionPolicy p : policies) {
            try {
                Map<String, Double> figures = new LinkedHashMap<>();
                p.learned().forEach((k, v) -> {
                    if (v != null && Double.isFinite(v)) {
                        figures.put(k, v);
                    }
                });
                if (!figures.isEmpty()) {
                    out.put(p.name(), figures);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "policy " + p.name() + " could not tell what it has learned", e);
            }
        }
        return out;
    }

    /** The port actually bound (differs from the configured one when that was 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    @Deactivate
    void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    private interface MasterHandler {
        void handle(MasterService m) throws IOException;
    }

    private void withMaster(HttpExchange ex, MasterHandler handler) throws IOException {
        try (ex) {
            try {
                if (!"GET".equals(ex.getRequestMethod())) {
                    error(ex, 405, ErrorCode.INVALID_PARAMS, "only GET is served");
                    return;
                }
                MasterService m = master;
                if (m == null) {
                    error(ex, 503, ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, "no master in this container");
                    return;
                }
                handler.handle(m);
            } catch (StoreException e) {
                error(ex, 400, e.errorCode(), e.getMessage());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "admin request " + ex.getRequestURI() + " failed", e);
                error(ex, 500, ErrorCode.INTERNAL_ERROR, e.toString());
            }
        }
    }

    /** What this process's client has moved, by protocol; empty without a client. */
    private List<TransferStats> transfers() {
        StoreClient c = client;
        return c == null ? List.of() : c.transferStats();
    }

    private void health(HttpExchange ex) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                error(ex, 405, ErrorCode.INVALID_PARAMS, "only GET is served");
                return;
            }
            MasterService m = master;
            StoreClient c = client;
            Map<String, Object> body = new LinkedHashMap<>();
            boolean up = m != null && (c == null || c.isHealthy());
            body.put("status", up ? "UP" : "DOWN");
            body.put("master", m != null);
            body.put("client", c == null ? "absent" : c.isHealthy() ? "healthy" : "unhealthy");
            if ("HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(up ? 200 : 503, -1); // a HEAD answer has no body, and says no length
                return;
            }
            sendJson(ex, up ? 200 : 503, body);
        }
    }

    private void queryKey(HttpExchange ex, MasterService m) throws IOException {
        Map<String, String> q = query(ex.getRequestURI().getRawQuery());
        String key = q.get("key");
        if (key == null) {
            error(ex, 400, ErrorCode.INVALID_PARAMS, "query parameter 'key' is required");
            return;
        }
        ObjectKey k = new ObjectKey(q.getOrDefault("tenant", ObjectKey.DEFAULT_TENANT), key);
        var info = m.queryKey(k);
        if (info.isEmpty()) {
            error(ex, 404, ErrorCode.OBJECT_NOT_FOUND, "no object " + k);
        } else {
            sendJson(ex, 200, info.get());
        }
    }

    static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                String decoded = URLDecoder.decode(name, StandardCharsets.UTF_8);
                if (out.put(decoded, URLDecoder.decode(value, StandardCharsets.UTF_8)) != null) {
                    // which one was meant? answering for either could mislead
                    throw new StoreException(ErrorCode.INVALID_PARAMS, "query parameter '" + decoded + "' given twice");
                }
            } catch (IllegalArgumentException e) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "malformed query string");
            }
        }
        return out;
    }

    private void error(HttpExchange ex, int status, ErrorCode code, String message) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code.name());
        body.put("code", code.code());
        body.put("message", message);
        sendJson(ex, status, body);
    }

    private void sendJson(HttpExchange ex, int status, Object body) throws IOException {
        send(ex, status, "application/json", json.writeValueAsString(body));
    }

    private static void send(HttpExchange ex, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
