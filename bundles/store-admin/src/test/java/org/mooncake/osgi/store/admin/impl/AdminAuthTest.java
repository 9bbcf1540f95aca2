package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.ws.rs.core.MultivaluedHashMap;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;

/**
 * The admin endpoints on the JDK server with client certificates and bearer tokens, spoken as raw
 * HTTP/1.1 over a socket: who is refused (401 without a credential, 403 without the right), who
 * is answered, and that nothing changes where neither is configured.
 */
@Timeout(120)
class AdminAuthTest {
    private static final String PW = TestCertificates.PASSWORD;
    static final String TOKEN_A = "admin-http-token-of-a-0123456789";
    static final String TOKEN_B = "admin-http-token-of-b-0123456789";
    static final String TOKEN_ADMIN = "admin-http-token-of-ops-0123456789";
    static final Map<String, Path> KEYS = new ConcurrentHashMap<>();
    static Path trust;
    static Path otherTrust;
    static Path tokens;

    private final MasterService master = Stubs.master();
    private AdminHttpServer server;

    @BeforeAll
    static void credentials(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca("cluster");
        Path other = certs.ca("other");
        trust = certs.truststore(ca);
        otherTrust = certs.truststore(other);
        String role = AdminCaller.ROLE_PREFIX;
        String tenant = AdminCaller.TENANT_PREFIX;
        try (var pool = Executors.newFixedThreadPool(4)) {
            var made = List.of(
                    pool.submit(() -> KEYS.put("master", certs.issue(ca, "master", null, 2, role + "master"))),
                    pool.submit(() -> KEYS.put("client-a", certs.issue(ca, "client-a", null, 2, tenant + "a"))),
                    pool.submit(() -> KEYS.put("client-b", certs.issue(ca, "client-b", null, 2, role + "client", tenant + "b"))),
                    pool.submit(() -> KEYS.put("admin", certs.issue(ca, "admin", null, 2, role + "admin"))),
                    pool.submit(() -> KEYS.put("foreign", certs.issue(other, "foreign", null, 2, role + "admin"))));
            for (var f : made) {
                f.get();
            }
        }
        tokens = dir.resolve("tokens");
        Files.write(tokens, List.of("# admin tokens", TOKEN_A + " tenant=a", TOKEN_B + " tenant=b role=client",
                TOKEN_ADMIN + " role=admin name=ops"));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    static AdminHttpServer.Config config(String keystore, String truststore, String tokenFile) {
        return new AdminHttpServer.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminHttpServer.Config.class;
            }

            @Override
            public int port() {
                return 0;
            }

            @Override
            public String bind_address() {
                return "127.0.0.1";
            }

            @Override
            public String tls_keystore() {
                return keystore;
            }

            @Override
            public String tls_truststore() {
                return truststore;
            }

            @Override
            public String tls_password() {
                return PW;
            }

            @Override
            public String auth_tokens_file() {
                return tokenFile;
            }
        };
    }

    /** The master holds a/k1. */
    AdminAuthTest() {
        master.mountSegment(new SegmentDescriptor("s1", "c1", 1 << 20, new SegmentEndpoint("local", "x", "s1")));
        ObjectKey k = new ObjectKey("a", "k1");
        master.putEnd("c1", k, master.putStart("c1", k, 100, ReplicateConfig.DEFAULT, false).putId(), 1);
    }

    /** A server of {@code config} in front of the master. */
    private AdminHttpServer serve(AdminHttpServer.Config config) throws Exception {
        server = new AdminHttpServer(config);
        var f = AdminHttpServer.class.getDeclaredField("master");
        f.setAccessible(true);
        f.set(server, master);
        return server;
    }

    private AdminHttpServer tlsServer() throws Exception {
        return serve(config(KEYS.get("master").toString(), trust.toString(), tokens.toString()));
    }

    static SSLContext as(String identity, Path truststore) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(identity == null ? null : load(KEYS.get(identity)), PW.toCharArray());
        TrustManagerFactory tm = TrustManagerFactory.getInstance("PKIX");
        tm.init(load(truststore));
        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        ctx.init(identity == null ? null : keys.getKeyManagers(), tm.getTrustManagers(), null);
        return ctx;
    }

    private static KeyStore load(Path file) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PW.toCharArray());
        }
        return ks;
    }

    /** Status line and body of a raw HTTP/1.1 GET. */
    record Reply(int status, String head, String body) {
    }

    /** GET {@code path} over TLS with {@code tls} (null: plain), with an Authorization header unless null. */
    static Reply get(int port, SSLContext tls, String path, String authorization) throws IOException {
        Socket s = tls == null ? new Socket("127.0.0.1", port) : tls.getSocketFactory().createSocket("127.0.0.1", port);
        try (s) {
            s.setSoTimeout(10_000);
            if (s instanceof SSLSocket ssl) {
                ssl.startHandshake();
            }
            String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = reply.indexOf("\r\n\r\n");
            if (end < 0) {
                throw new IOException("no HTTP answer: " + reply);
            }
            return new Reply(Integer.parseInt(reply.substring(9, 12)), reply.substring(0, end), reply.substring(end + 4));
        }
    }

    private static void assertStatus(int expected, Reply r, String what) {
        assertEquals(expected, r.status(), what + ": " + r.head() + "\n" + r.body());
    }

    @Test
    void overHttpsACertificateSeesItsTenantAndAnAdminEverything() throws Exception {
        int port = tlsServer().port();
        SSLContext a = as("client-a", trust);
        SSLContext b = as("client-b", trust);
        SSLContext admin = as("admin", trust);
        assertStatus(200, get(port, a, "/query_key?key=k1&tenant=a", null), "client-a, a key of tenant a");
        assertStatus(403, get(port, b, "/query_key?key=k1&tenant=a", null), "client-b, a key of tenant a");
        assertStatus(403, get(port, a, "/query_key?key=k1", null), "client-a, the default tenant");
        assertStatus(200, get(port, admin, "/query_key?key=k1&tenant=a", null), "admin, any tenant");
        assertStatus(403, get(port, a, "/stats", null), "the whole store's stats without admin");
        Reply stats = get(port, admin, "/stats", null);
        assertStatus(200, stats, "the whole store's stats for an admin");
        assertTrue(stats.body().contains("\"objects\" : 1"), stats.body());
        assertStatus(403, get(port, b, "/stats?tenant=a", null), "tenant a's stats for client-b");
        Reply own = get(port, a, "/stats?tenant=a", null);
        assertStatus(200, own, "tenant a's stats for client-a");
        assertTrue(own.body().contains("\"tenant\" : \"a\"") && own.body().contains("\"objects\" : 1"), own.body());
        for (String adminOnly : List.of("/metrics", "/get_all_segments")) {
            assertStatus(403, get(port, a, adminOnly, null), adminOnly + " without admin");
            assertStatus(200, get(port, admin, adminOnly, null), adminOnly + " for an admin");
        }
        assertStatus(200, get(port, a, "/health", null), "/health for any certificate");
    }

    @Test
    void overHttpsACertificateOfAnotherCaOrNoneIsRefusedAtTheHandshake() throws Exception {
        int port = tlsServer().port();
        assertThrows(IOException.class, () -> get(port, as("foreign", otherTrust), "/health", null), "another CA");
        assertThrows(IOException.class, () -> get(port, as(null, trust), "/health", null), "no certificate");
        assertThrows(IOException.class, () -> get(port, null, "/health", null), "plain HTTP to the HTTPS port");
        assertStatus(200, get(port, as("client-a", trust), "/health", null), "the port still serves");
    }

    @Test
    void aBearerTokenStandsInForTheCertificate() throws Exception {
        int port = tlsServer().port();
        SSLContext a = as("client-a", trust);
        assertStatus(200, get(port, a, "/stats", "Bearer " + TOKEN_ADMIN), "client-a's connection, the admin token");
        assertStatus(403, get(port, a, "/query_key?key=k1&tenant=a", "Bearer " + TOKEN_B), "tenant b's token");
        Reply wrong = get(port, a, "/query_key?key=k1&tenant=a", "Bearer not-a-token-0123456789");
        assertStatus(401, wrong, "a wrong token");
        assertTrue(wrong.head().toLowerCase(java.util.Locale.ROOT).contains("www-authenticate: bearer realm=\"mooncake\""),
                wrong.head());
    }

    @Test
    void withTokensAloneEveryCallerNeedsTheRightOne() throws Exception {
        int port = serve(config("", "", tokens.toString())).port();
        String key = "/query_key?key=k1&tenant=a";
        assertStatus(401, get(port, null, key, null), "no credential");
        assertStatus(401, get(port, null, key, "Bearer wrong-token-0123456789"), "a wrong token");
        assertStatus(401, get(port, null, key, "Basic " + TOKEN_A), "not a bearer token");
        assertStatus(401, get(port, null, key, "Bearer " + TOKEN_A.substring(1)), "one character short");
        assertStatus(403, get(port, null, key, "Bearer " + TOKEN_B), "another tenant's token");
        assertStatus(200, get(port, null, key, "Bearer " + TOKEN_A), "the tenant's token");
        assertStatus(200, get(port, null, key, "bearer " + TOKEN_ADMIN), "the admin's token, the scheme in any case");
        assertStatus(403, get(port, null, "/stats", "Bearer " + TOKEN_A), "the whole store for a tenant");
        assertStatus(200, get(port, null, "/stats", "Bearer " + TOKEN_ADMIN), "the whole store for an admin");
        assertStatus(200, get(port, null, "/health", null), "/health stays open");
    }

    @Test
    void withNeitherCertificatesNorTokensEveryoneReadsAsBefore() throws Exception {
        int port = serve(config("", "", "")).port();
        assertStatus(200, get(port, null, "/query_key?key=k1&tenant=a", null), "any tenant");
        assertStatus(200, get(port, null, "/stats", null), "the whole store");
        assertStatus(200, get(port, null, "/query_key?key=k1&tenant=a", "Bearer anything-at-all-0123"),
                "a token is not looked at");
    }

    @Test
    void aBrokenTlsOrTokenConfigurationIsRefusedWithItsReason() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new AdminHttpServer(config(KEYS.get("master").toString(), "", ""))).getMessage()
                .contains("both tls.keystore and tls.truststore"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new AdminHttpServer(config("", "", "/no/such/tokens"))).getMessage()
                .contains("cannot read the token file /no/such/tokens"));
    }

    /** A servlet request as Felix HTTP hands it over: the certificate chain as Jetty 12 names it, and the headers. */
    private static javax.servlet.http.HttpServletRequest request(String identity, String authorization) throws Exception {
        X509Certificate[] chain = identity == null ? null
                : new X509Certificate[] {(X509Certificate) load(KEYS.get(identity)).getCertificate("me")};
        return (javax.servlet.http.HttpServletRequest) Proxy.newProxyInstance(AdminAuthTest.class.getClassLoader(),
                new Class<?>[] {javax.servlet.http.HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getAttribute" -> "jakarta.servlet.request.X509Certificate".equals(args[0]) ? chain : null;
                    case "getHeader" -> "Authorization".equalsIgnoreCase((String) args[0]) ? authorization : null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static UriInfo query(String name, String value) {
        MultivaluedHashMap<String, String> map = new MultivaluedHashMap<>();
        if (name != null) {
            map.add(name, value);
        }
        map.add("key", "k1");
        return (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getQueryParameters")) {
                        return map;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private AdminResource resource(boolean authRequired, String tokenFile) throws Exception {
        AdminResource r = new AdminResource(new AdminResource.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminResource.Config.class;
            }

            @Override
            public String[] endpoints() {
                return AdminEndpoints.ALL.toArray(String[]::new);
            }

            @Override
            public boolean auth_required() {
                return authRequired;
            }

            @Override
            public String auth_tokens_file() {
                return tokenFile;
            }
        });
        var field = AdminResource.class.getDeclaredField("master");
        field.setAccessible(true);
        field.set(r, master);
        return r;
    }

    /** On Felix HTTP (all-in-one with https=true) the resource reads the certificate Jetty checked. */
    @Test
    void onTheWhiteboardTheCertificateFelixHttpCheckedBoundsTheAnswers() throws Exception {
        UriInfo ofA = query("tenant", "a");
        assertEquals(401, resource(true, "").queryKey(ofA, request(null, null)).getStatus(), "no certificate (plain HTTP)");
        Response noCert = resource(true, tokens.toString()).queryKey(ofA, request(null, null));
        assertEquals(401, noCert.getStatus());
        assertEquals(Answer.CHALLENGE, noCert.getHeaderString("WWW-Authenticate"));
        assertEquals(403, resource(true, "").queryKey(ofA, request("client-b", null)).getStatus(), "client-b, tenant a");
        assertEquals(200, resource(true, "").queryKey(ofA, request("client-a", null)).getStatus(), "client-a, tenant a");
        assertEquals(403, resource(true, "").stats(query(null, null), request("client-a", null)).getStatus(), "stats, not admin");
        assertEquals(200, resource(true, "").stats(query(null, null), request("admin", null)).getStatus(), "stats, admin");
        assertEquals(401, resource(true, tokens.toString()).queryKey(ofA, request(null, "Bearer wrong-token-0123456789"))
                .getStatus(), "a wrong token");
        assertEquals(403, resource(false, tokens.toString()).queryKey(ofA, request(null, "Bearer " + TOKEN_B)).getStatus(),
                "another tenant's token (tokens alone turn the checks on)");
        assertEquals(200, resource(false, tokens.toString()).queryKey(ofA, request(null, "Bearer " + TOKEN_A)).getStatus());
        assertEquals(200, resource(true, "").health(ofA, request(null, null)).getStatus(), "/health stays open");
        assertEquals(200, resource(false, "").queryKey(ofA, request(null, null)).getStatus(), "nothing required: as before");
    }
}
