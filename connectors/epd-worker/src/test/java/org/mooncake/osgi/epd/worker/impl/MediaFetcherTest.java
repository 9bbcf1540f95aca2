package org.mooncake.osgi.epd.worker.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.MediaIds;
import org.mooncake.osgi.epd.demo.DemoMedia;
import org.mooncake.osgi.epd.model.ModelConfig;

import com.sun.net.httpserver.HttpServer;

/** Media from data URLs and from http URLs, with their limits, and the errors a request gets. */
class MediaFetcherTest {
    private final HttpServer server;
    private final byte[] png = DemoMedia.png(5, 64);

    MediaFetcherTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        server.createContext("/cat.png", ex -> {
            ex.sendResponseHeaders(200, png.length);
            ex.getResponseBody().write(png);
            ex.close();
        });
        server.createContext("/gone.png", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void anHttpImageDecodesAsItsDataUrlDoes() {
        MediaFetcher f = new MediaFetcher(1 << 20, Duration.ofSeconds(5));
        ModelConfig tiny = ModelConfig.tiny();
        var viaHttp = f.fetch(new ChatRequest.Media(url("/cat.png"), MediaIds.of(url("/cat.png")), false), tiny);
        var viaData = f.fetch(new ChatRequest.Media(DemoMedia.pngDataUrl(5, 64), "x", false), tiny);
        assertEquals(viaData.contentHash(), viaHttp.contentHash());
    }

    @Test
    void aFailedOrOversizeFetchAndAnUnknownSchemeAre400() {
        MediaFetcher small = new MediaFetcher(100, Duration.ofSeconds(5));
        ModelConfig tiny = ModelConfig.tiny();
        ApiError tooBig = assertThrows(ApiError.class,
                () -> small.fetch(new ChatRequest.Media(url("/cat.png"), "x", false), tiny));
        assertEquals(400, tooBig.status);
        assertTrue(tooBig.getMessage().contains("larger than 100 bytes"), tooBig.getMessage());
        MediaFetcher f = new MediaFetcher(1 << 20, Duration.ofSeconds(5));
        ApiError gone = assertThrows(ApiError.class, () -> f.fetch(new ChatRequest.Media(url("/gone.png"), "x", false), tiny));
        assertTrue(gone.getMessage().contains("404"), gone.getMessage());
        ApiError file = assertThrows(ApiError.class, () -> f.fetch(new ChatRequest.Media("file:///etc/passwd", "x", false),
                tiny));
        assertTrue(file.getMessage().contains("data:, http: or https:"), file.getMessage());
        ApiError video = assertThrows(ApiError.class,
                () -> f.fetch(new ChatRequest.Media(DemoMedia.gifDataUrl(1, 64, 3), "x", false), tiny));
        assertTrue(video.getMessage().contains("video_url"), video.getMessage());
    }
}
