package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.net.ssl.SSLPeerUnverifiedException;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
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

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;

/**
 * The admin endpoints on the JDK's own HTTP server, for processes without a servlet container: the
 * master and storage profiles carry no Jetty, slf4j or SPI Fly. This server was once the only one,
 * chosen for that reason; all-in-one reverses the choice: it runs Felix HTTP on Jetty for the web
 * console (features http and console) and serves these endpoints there on the whiteboard
 * ({@link AdminResource}, with this server at port -1), one HTTP server per process, where other
 * bundles add endpoints without touching this one. Requests run on virtual threads and read the
 * references once each ({@link Parts}); what they answer is {@link AdminEndpoints}'.
 * <p>
 * With {@code tls.*} set it serves HTTPS with the cluster's stores and requires a client
 * certificate of the cluster CA; with {@code auth.tokens.file}, bearer tokens. Either way the
 * caller's identity bounds what it reads ({@link AdminAccess}); with neither, everyone reads
 * everything, which is why the default bind address is loopback.
 */
@Component(service = {}, immediate = true, configurationPid = AdminHttpServer.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = AdminHttpServer.Config.class)
public final class AdminHttpServer {
    public static final String PID = "org.mooncake.osgi.store.admin.http";
    /** The port that means: no server. */
    static final int OFF = -1;
    private static final System.Logger LOG = System.getLogger(AdminHttpServer.class.getName());

    @ObjectClassDefinition(name = "Mooncake admin HTTP endpoint")
    public @interface Config {
        @AttributeDefinition(description = "TCP port; 0 picks a free one (logged); -1: no server (a process that "
                + "serves the admin endpoints on the http feature's port, org.mooncake.osgi.store.admin.rest)")
        int port() default 9003;

        @AttributeDefinition(description = "Address to bind; 127.0.0.1 keeps the endpoints to this host, 0.0.0.0 "
                + "opens them to every interface")
        String bind_address() default "127.0.0.1";

        @AttributeDefinition(description = "PKCS12 keystore with this process's key and certificate, signed by the "
                + "cluster CA (the master RPC's tls.keystore): serve HTTPS and require a client certificate of the "
                + "CA, whose identity bounds what it may read (docs/security.md). Empty: plain HTTP, open to "
                + "whoever reaches the port")
        String tls_keystore() default "";

        @AttributeDefinition(description = "PKCS12 truststore with the cluster CA certificate")
        String tls_truststore() default "";

        @AttributeDefinition(description = "Password of the keystore and the truststore",
                type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
        String tls_password() default "";

        @AttributeDefinition(description = "File of access tokens (the master RPC's format: 'TOKEN tenant=NAME "
                + "role=client|admin'), presented as Authorization: Bearer TOKEN. Set: every endpoint but /health "
                + "needs a token or a client certificate. Empty: no tokens")
        String auth_tokens_file() default "";
    }

    /**
     * The JVM system property that cuts off slow clients: seconds a client may take to send a
     * whole request (request line and headers) before the JDK server closes its connection, so
     * that a client sending half a request and then nothing (a slowloris) holds no connection for
     * good. Unset or not above 0: no limit. The JDK reads it once per JVM, when its first HTTP
     * server starts, and offers no setting per server, hence a JVM option (the mooncake launcher sets it)
     * rather than a property of this PID.
     */
    static final String REQUEST_TIMEOUT_PROPERTY = "sun.net.httpserver.maxReqTime";

    /** {@link #REQUEST_TIMEOUT_PROPERTY} in seconds; -1 when there is no limit. */
    static long requestTimeoutSeconds() {
        long seconds = Long.getLong(REQUEST_TIMEOUT_PROPERTY, -1);
        return seconds > 0 ? seconds : -1;
    }

    private final AdminEndpoints endpoints = new AdminEndpoints();
    /** Replaced by {@link #modified}; null while off. */
    private volatile HttpServer server;
    private volatile Setup served;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile MasterService master;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile StoreClient client;

    /** The policies registered in this container, for what they have learned. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<EvictionPolicy> policies = List.of();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<MetricSource> metricSources = List.of();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<HealthSource> healthSources = List.of();

    @Activate
    public AdminHttpServer(Config config) throws IOException {
        Setup at = Setup.of(config);
        server = serve(at);
    }

    /**
     * Where the endpoint listens, and how callers prove who they are (HTTPS with client
     * certificates when {@code tls} is set, bearer tokens when {@code tokens} is): checked before
     * anything is bound.
     */
    record Setup(String bind, int port, AdminTls tls, AdminTokens tokens) {
        /** Reads and checks {@code config}; a value that is no number, or unreadable stores, fail here. */
        static Setup of(Config config) {
            int port = config.port();
            if (port < OFF || port > 65535) {
                throw new IllegalArgumentException("port must be 0 to 65535, or -1 for no server, was " + port);
            }
            if (port == OFF) {
                return new Setup(config.bind_address(), port, null, null);
            }
            String tokenFile = config.auth_tokens_file() == null ? "" : config.auth_tokens_file().strip();
            return new Setup(config.bind_address(), port,
                    AdminTls.of(config.tls_keystore(), config.tls_truststore(), config.tls_password()),
                    tokenFile.isEmpty() ? null : AdminTokens.read(java.nio.file.Path.of(tokenFile)));
        }

        AdminAccess access() {
            return AdminAccess.of(tls != null, tokens);
        }

        boolean off() {
            return port == OFF;
        }
    }

    /** Serves on {@code at}, or logs that it is off; null when off. */
    private HttpServer serve(Setup at) throws IOException {
        if (at.off()) {
            served = at;
            LOG.log(Level.INFO, "admin endpoint on the JDK server off (port -1)");
            return null;
        }
        InetSocketAddress address = new InetSocketAddress(at.bind(), at.port());
        HttpServer s;
        if (at.tls() == null) {
            s = HttpServer.create(address, 64);
        } else {
            HttpsServer https = HttpsServer.create(address, 64);
            https.setHttpsConfigurator(at.tls().configurator());
            s = https;
        }
        s.setExecutor(executor);
        AdminAccess access = at.access();
        for (String endpoint : AdminEndpoints.ALL) {
            s.createContext("/" + endpoint, ex -> handle(ex, endpoint, access));
        }
        s.start();
        served = at;
        LOG.log(Level.INFO, "admin endpoint on {0}://{1}:{2}/{3}", at.tls() == null ? "http" : "https", at.bind(),
                String.valueOf(s.getAddress().getPort()), at.tokens() == null ? "" : ", " + at.tokens());
        long timeout = requestTimeoutSeconds();
        if (timeout > 0) {
            LOG.log(Level.DEBUG, "admin endpoint: a client that takes over {0} s to send a request is cut off", timeout);
        } else {
            LOG.log(Level.WARNING, "admin endpoint: a client that sends half a request and then nothing holds its "
                    + "connection for good; start the JVM with -D{0}=SECONDS to cut it off (the mooncake launcher sets 10)",
                    REQUEST_TIMEOUT_PROPERTY);
        }
        return s;
    }

    /**
     * A changed configuration moves the endpoint, or turns it off or on; a broken one, or an
     * address that cannot be bound, is refused with its reason and the endpoint stays where it was
     * (operators watch it through the change). Without this DS would stop the endpoint, and a
     * broken file would leave none. Called by DS, one change at a time.
     */
    @Modified
    void modified(Config config) {
        Setup next;
        try {
            next = Setup.of(config);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected admin endpoint configuration, still {0}: {1}",
                    server == null ? "off" : "serving on port " + port(), FrameworkLog.line(null, e));
            return;
        }
        if (next.equals(served)) {
            return;
        }
        Setup was = served;
        HttpServer old = server;
        // the new address needs this port, or there is to be no server
        boolean stopFirst = next.off() || (next.port() > 0 && next.port() == port());
        if (stopFirst) {
            stop(old);
        }
        try {
            server = serve(next);
            if (!stopFirst) {
                stop(old);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "cannot serve the admin endpoint on {0}:{1} ({2}); keeping {3}", next.bind(),
                    String.valueOf(next.port()), e.toString(), was.off() ? "it off" : was.bind() + ":" + was.port());
            if (stopFirst) {
                try {
                    server = serve(was);
                } catch (IOException | RuntimeException again) {
                    server = null;
                    LOG.log(Level.ERROR, "the admin endpoint is down: its old address failed too", again);
                }
            }
        }
    }

    /** The port actually bound (differs from the configured one when that was 0); -1 while off. */
    public int port() {
        HttpServer s = server;
        return s == null ? OFF : s.getAddress().getPort();
    }

    @Deactivate
    void stop() {
        stop(server);
        executor.shutdownNow();
    }

    private static void stop(HttpServer s) {
        if (s != null) {
            s.stop(0);
        }
    }

    private Parts parts() {
        return new Parts(master, client, policies, metricSources, healthSources);
    }

    private void handle(HttpExchange ex, String endpoint, AdminAccess access) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            boolean head = "HEAD".equals(method) && AdminEndpoints.HEALTH.equals(endpoint); // load balancers probe with HEAD
            if (!"GET".equals(method) && !head) {
                send(ex, Answer.error(405, ErrorCode.INVALID_PARAMS, "only GET is served"), false);
                return;
            }
            Answer a;
            try {
                var query = Query.parse(ex.getRequestURI().getRawQuery());
                Answer refused = access.refusal(endpoint, query, certificates(ex),
                        ex.getRequestHeaders().getFirst("Authorization"));
                a = refused != null ? refused : endpoints.answer(endpoint, query, parts());
            } catch (StoreException e) {
                a = Answer.error(400, e.errorCode(), e.getMessage());
            }
            send(ex, a, head);
        }
    }

    /** The client's certificate chain on HTTPS (checked at the handshake), null on plain HTTP. */
    private static X509Certificate[] certificates(HttpExchange ex) {
        if (!(ex instanceof HttpsExchange https) || https.getSSLSession() == null) {
            return null;
        }
        try {
            Certificate[] chain = https.getSSLSession().getPeerCertificates();
            return Arrays.stream(chain).filter(X509Certificate.class::isInstance).map(X509Certificate.class::cast)
                    .toArray(X509Certificate[]::new);
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    private static void send(HttpExchange ex, Answer a, boolean head) throws IOException {
        ex.getResponseHeaders().set("Content-Type", a.contentType());
        if (a.status() == 401) {
            ex.getResponseHeaders().set("WWW-Authenticate", Answer.CHALLENGE);
        }
        if (head) {
            ex.sendResponseHeaders(a.status(), -1); // a HEAD answer has no body, and says no length
            return;
        }
        byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(a.status(), bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
