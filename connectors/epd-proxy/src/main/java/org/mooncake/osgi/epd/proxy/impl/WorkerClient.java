package org.mooncake.osgi.epd.proxy.impl;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Outbound HTTP to workers: one JDK {@link HttpClient} (HTTP/1.1, no redirects) whose
 * callbacks run on virtual threads. Every call is asynchronous and bounded by
 * {@link #within}: past its timeout the exchange is cancelled, which closes its connection.
 */
final class WorkerClient implements AutoCloseable {
    static final String REQUEST_ID = "X-Request-Id";
    static final String CHAT = "/v1/chat/completions";

    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("epd-proxy-http-", 0).factory());
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(executor)
            .build();

    /** {@code POST base+path} with a JSON body and the request id; the body handler decides buffering or streaming. */
    <T> CompletableFuture<HttpResponse<T>> post(URI base, String path, byte[] json, String requestId, Duration timeout,
            BodyHandler<T> handler) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header(REQUEST_ID, requestId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                .build();
        return http.sendAsync(request, handler);
    }

    /** {@code GET base+path}, body buffered. */
    CompletableFuture<HttpResponse<byte[]>> get(URI base, String path, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /**
     * {@code f}, failing with a TimeoutException after {@code timeout}; then, or when the returned
     * future is cancelled, {@code f} is cancelled too (the JDK client aborts the exchange and
     * closes its connection).
     */
    static <T> CompletableFuture<T> within(CompletableFuture<T> f, Duration timeout) {
        CompletableFuture<T> guarded = f.copy().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        guarded.whenComplete((v, e) -> {
            if (e != null) {
                f.cancel(true);
            }
        });
        return guarded;
    }

    /** Response body handler that streams. */
    static BodyHandler<InputStream> streaming() {
        return HttpResponse.BodyHandlers.ofInputStream();
    }

    /** Response body handler that buffers. */
    static BodyHandler<byte[]> buffered() {
        return HttpResponse.BodyHandlers.ofByteArray();
    }

    /** Aborts every exchange in flight and releases the client's threads. */
    @Override
    public void close() {
        http.shutdownNow();
        executor.shutdownNow();
    }
}
