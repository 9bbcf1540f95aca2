package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/mooncake} with the http feature, as operators and the EPD processes run it: the
 * process says where it serves HTTP (the port Felix picked for 0), and a port it cannot use ends
 * it at once with the reason.
 */
class HttpEndpointIT {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home"));
    private static final Pattern ENDPOINT = Pattern.compile("mooncake: http endpoint on (http://127\\.0\\.0\\.1:[0-9]+/)");

    private static Process start(String instance, Path log, String... args) throws IOException {
        Files.createDirectories(log.getParent());
        List<String> cmd = new ArrayList<>(List.of("bash", HOME.resolve("bin/mooncake").toString(), "start", "--headless",
                "--profile", "http-smoke", "--instance", instance, "--set", "http.bind=127.0.0.1"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    @Test
    void theProcessPrintsTheBoundPortAndServesItsHealthThere() throws Exception {
        Path log = HOME.resolve("..").resolve("cluster-logs").resolve("it-http.log");
        long started = System.nanoTime();
        Process p = start("it-http", log, "--set", "http.port=0");
        try {
            String[] base = new String[1];
            Awaitility.await("the endpoint line (see " + log + ")").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50)).until(() -> {
                        Matcher m = ENDPOINT.matcher(Files.readString(log));
                        base[0] = m.find() ? m.group(1) : null;
                        return base[0] != null || !p.isAlive();
                    });
            assertTrue(base[0] != null, Files.readString(log));
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(base[0] + "health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());
            System.out.println("http-smoke process: first 200 from /health " + (System.nanoTime() - started) / 1_000_000
                    + " ms after the JVM was started");
        } finally {
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the process stops on SIGTERM");
        }
    }

    @Test
    void aPortInUseOrNoPortAtAllEndsTheStartWithTheReason() throws Exception {
        Path log = HOME.resolve("..").resolve("cluster-logs").resolve("it-http-refused.log");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            for (String port : List.of(String.valueOf(taken.getLocalPort()), "eighty")) {
                Process p = start("it-http-refused", log, "--set", "http.port=" + port);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the start ended");
                String said = Files.readString(log);
                assertEquals(1, p.exitValue(), said);
                assertTrue(said.contains("mooncake: failed to start") && said.contains(port) && said.contains("http.port"), said);
            }
        }
    }
}
