package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.endpoint.Server;
import org.apache.cxf.jaxrs.JAXRSServerFactoryBean;
import org.apache.cxf.jaxrs.lifecycle.SingletonResourceProvider;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The proxy as it serves: {@link OpenAiResource} and {@link InstancesResource} on CXF's JAX-RS runtime over Jetty (the same CXF
 * the Aries whiteboard runs on), in front of an {@link EpdProxy} with the given settings.
 */
final class ProxyFixture implements AutoCloseable {
    final EpdProxy proxy;
    final URI base;
    final int port;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Bus bus;
    private final Server server;

    ProxyFixture(ProxySettings settings) throws IOException {
        proxy = new EpdProxy(settings);
        bus = BusFactory.newInstance().createBus();
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        JAXRSServerFactoryBean sf = new JAXRSServerFactoryBean();
        sf.setBus(bus);
        sf.setResourceClasses(OpenAiResource.class, InstancesResource.class);
        sf.setResourceProvider(OpenAiResource.class, new SingletonResourceProvider(new OpenAiResource(proxy)));
        sf.setResourceProvider(InstancesResource.class, new SingletonResourceProvider(new InstancesResource(proxy)));
        sf.setAddress("http://127.0.0.1:" + port + "/");
        server = sf.create();
        base = URI.create("http://127.0.0.1:" + port);
    }

    /** Test settings: short timeouts, the given workers configured. */
    static Builder settings(FakeWorker... workers) {
        return new Builder(workers);
    }

    HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws IOException {
        return Json.MAPPER.readTree(r.body());
    }

    /** A chat request body: {@code messages} is a JSON array text. */
    static String chatBody(boolean stream, String messages) {
        return "{\"model\":\"" + FakeWorker.MODEL + "\",\"stream\":" + stream + ",\"max_tokens\":64,\"messages\":"
                + messages + "}";
    }

    static String textOnly(boolean stream) {
        return chatBody(stream, "[{\"role\":\"user\",\"content\":\"hello\"}]");
    }

    @Override
    public void close() {
        server.destroy();
        bus.shutdown(true);
        proxy.close();
    }

    /** Builds {@link ProxySettings} for tests. */
    static final class Builder {
        private final Map<Role, List<URI>> workers = new EnumMap<>(Role.class);
        private Duration encode = Duration.ofSeconds(10);
        private Duration prefill = Duration.ofSeconds(10);
        private Duration decode = Duration.ofSeconds(10);
        private Duration idle = Duration.ofSeconds(10);
        private long maxBody = ProxySettings.DEFAULT_MAX_BODY_BYTES;
        private List<String> models = List.of();
        private int threshold = 3;

        Builder(FakeWorker... ws) {
            for (FakeWorker w : ws) {
                workers.computeIfAbsent(w.role, r -> new ArrayList<>()).add(w.url());
            }
        }

        Builder timeouts(long encodeMs, long prefillMs, long decodeMs, long idleMs) {
            encode = Duration.ofMillis(encodeMs);
            prefill = Duration.ofMillis(prefillMs);
            decode = Duration.ofMillis(decodeMs);
            idle = Duration.ofMillis(idleMs);
            return this;
        }

        Builder maxBody(long bytes) {
            maxBody = bytes;
            return this;
        }

        Builder models(String... names) {
            models = List.of(names);
            return this;
        }

        Builder threshold(int n) {
            threshold = n;
            return this;
        }

        ProxySettings build() {
            return new ProxySettings(workers, Duration.ofSeconds(5), Duration.ofSeconds(2), threshold, encode, prefill,
                    decode, idle, maxBody, models, Duration.ofSeconds(10));
        }

        ProxyFixture start() throws IOException {
            return new ProxyFixture(build());
        }
    }
}
