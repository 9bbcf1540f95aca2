package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Safe defaults of the JDK admin server: it binds loopback unless configured, and a client that
 * sends half a request line and then nothing (a slowloris) is cut off after the request timeout
 * ({@code sun.net.httpserver.maxReqTime}, 2 s in this module's tests) while others are served.
 */
class SlowClientTest {
    private final AdminHttpServer server;

    SlowClientTest() throws IOException {
        server = new AdminHttpServer(AdminEndpointTest.config(0, "127.0.0.1"));
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void itBindsLoopbackUnlessConfigured() throws Exception {
        assertEquals("127.0.0.1", AdminHttpServer.Config.class.getMethod("bind_address").getDefaultValue());
    }

    @Test
    void aClientThatSendsHalfARequestLineIsCutOffAfterTheTimeout() throws Exception {
        assertEquals(2, AdminHttpServer.requestTimeoutSeconds(), "set by this module's surefire configuration");
        try (Socket slow = new Socket("127.0.0.1", server.port())) {
            slow.getOutputStream().write("GET /hea".getBytes(StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
            long start = System.nanoTime();
            slow.setSoTimeout(15_000); // the deadline: a read blocked longer fails the test
            assertTrue(closedByServer(slow.getInputStream()), "the server closes the connection");
            double seconds = (System.nanoTime() - start) / 1e9;
            // the JDK checks request times once a second
            assertTrue(seconds >= 1.5 && seconds < 6, "cut off after " + seconds + " s");
            System.out.printf("slow client cut off after %.2f s (timeout 2 s)%n", seconds);

            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, health.statusCode(), "others are served meanwhile (no parts here: DOWN)");
        }
    }

    /** Reads until the server ends the connection: true on end of stream or a reset, false on bytes. */
    private static boolean closedByServer(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }
}
