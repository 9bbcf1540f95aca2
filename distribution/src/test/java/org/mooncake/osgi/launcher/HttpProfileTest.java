package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The shipped all-in-one profile with its one HTTP port, as workers and proxies run the http
 * feature too: every bundle active, the admin endpoints on that port through the JAX-RS
 * whiteboard beside the web console, and the JDK admin server off.
 */
class HttpProfileTest {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home"));
    private static final String ADMIN_SERVER = "org.mooncake.osgi.store.admin.impl.AdminHttpServer";
    /** Felix HTTP's logger, through slf4j: its lines reach java.util.logging only if slf4j found its provider. */
    private static final String FELIX_HTTP = "org.apache.felix.http";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A private copy of the home without etc/ files, so that the profile alone configures the process. */
    private static Path copyOfHome(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(HOME)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (p.startsWith(HOME.resolve("runtime"))) {
                    continue;
                }
                Path to = dir.resolve(HOME.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        return dir;
    }

    private static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private HttpResponse<String> get(String base, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void allInOneServesTheAdminEndpointsAndTheConsoleOnItsOneHttpPortAndTheJdkServerStaysOff(@TempDir Path dir) throws Exception {
        Path home = copyOfHome(dir);
        boolean adminPortFreeBefore = !answers(9003);
        ConcurrentLinkedQueue<String> adminServerSaid = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> felixHttpSaid = new ConcurrentLinkedQueue<>();
        Handler listen = new Handler() {
            @Override
            public void publish(LogRecord r) {
                (ADMIN_SERVER.equals(r.getLoggerName()) ? adminServerSaid : felixHttpSaid).add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger adminLog = Logger.getLogger(ADMIN_SERVER);
        Logger felixHttpLog = Logger.getLogger(FELIX_HTTP);
        adminLog.addHandler(listen);
        felixHttpLog.addHandler(listen);
        Profile profile = new FeatureReader(home.resolve("features")).profile("all-in-one");
        long started = System.nanoTime();
        Container c = Container.start(home, "http", profile, Map.of("http.port", "0", "http.bind", "127.0.0.1"),
                Map.of("gosh.args", "--nointeractive"));
        try {
            List<String> endpoints = c.httpEndpoints();
            assertEquals(1, endpoints.size(), endpoints.toString());
            String base = endpoints.getFirst();
            assertTrue(base.matches("http://127\\.0\\.0\\.1:[1-9][0-9]*/"), "the port Felix picked for 0: " + base);

            HttpResponse<String> metrics = get(base, "metrics");
            long firstAnswerMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(200, metrics.statusCode(), metrics.body());
            assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            assertTrue(metrics.body().contains("\nmooncake_objects 0\n")
                    && metrics.body().contains("mooncake_eviction_policy_active{policy=\"lease-lru\"} 1\n"), metrics.body());
            System.out.println("all-in-one: first 200 from /metrics " + firstAnswerMs + " ms after the start began");

            HttpResponse<String> health = get(base, "health");
            assertEquals(200, health.statusCode(), health.body());
            JsonNode report = new ObjectMapper().readTree(health.body());
            assertEquals("UP", report.get("status").asText());
            assertEquals("healthy", report.get("client").asText());
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "health")).HEAD().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode(), "load balancers probe with HEAD");

            HttpResponse<String> stats = get(base, "stats");
            assertEquals(200, stats.statusCode(), stats.body());
            assertEquals("lease-lru", new ObjectMapper().readTree(stats.body()).at("/master/activePolicy").asText());
            HttpResponse<String> missing = get(base, "query_key?key=nothing-here");
            assertEquals(404, missing.statusCode());
            assertEquals(-704, new ObjectMapper().readTree(missing.body()).get("code").asInt(), "the error shape stays");
            assertEquals(404, get(base, "cxf/services").statusCode(), "CXF's own servlet is off");

            HttpResponse<String> anonymous = get(base, "system/console/mooncake");
            assertEquals(401, anonymous.statusCode(), "the web console asks for its login");
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "system/console/mooncake"))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode(), "on loopback the default login opens the console");
            assertTrue(page.body().contains("lease-lru"), "the Mooncake page names the active policy");

            for (Bundle b : c.context().getBundles()) {
                assertEquals(Bundle.ACTIVE, b.getState(), b.getSymbolicName() + " is not active");
            }
            assertTrue(c.context().getBundles().length > 40, "the http feature's bundles are there");
            // slf4j looks for its provider once, when first used: started after Jetty, the provider
            // would be missed and Jetty's lines lost (the feature's start-order prevents that)
            assertTrue(felixHttpSaid.stream().anyMatch(m -> m.startsWith("Started Jetty")), felixHttpSaid.toString());

            assertTrue(adminServerSaid.stream().anyMatch(m -> m.contains("off (port -1)")), adminServerSaid.toString());
            assertFalse(adminServerSaid.stream().anyMatch(m -> m.startsWith("admin endpoint on http")), adminServerSaid.toString());
            if (adminPortFreeBefore) {
                assertFalse(answers(9003), "nothing listens on the JDK admin server's port");
            }
        } finally {
            adminLog.removeHandler(listen);
            felixHttpLog.removeHandler(listen);
            c.stop();
        }
    }
}
