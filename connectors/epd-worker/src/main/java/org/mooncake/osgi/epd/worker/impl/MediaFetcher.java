package org.mooncake.osgi.epd.worker.impl;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.mooncake.osgi.epd.api.MediaIds;
import org.mooncake.osgi.epd.model.Media;
import org.mooncake.osgi.epd.model.ModelConfig;

/**
 * Turns a media part's URL into decoded frames: a {@code data:} URL's bytes, or an {@code http(s)}
 * URL fetched with a timeout and a size limit. Any thread; a bad URL, a failed fetch or an image
 * that does not decode is the request's 400.
 */
final class MediaFetcher {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NORMAL).build();
    private final long maxBytes;
    private final Duration timeout;

    MediaFetcher(long maxBytes, Duration timeout) {
        this.maxBytes = maxBytes;
        this.timeout = timeout;
    }

    Media fetch(ChatRequest.Media part, ModelConfig cfg) {
        byte[] bytes = bytes(part.url());
        try {
            Media m = Media.decode(bytes, cfg);
            if (!part.video() && m.isVideo()) {
                throw ApiError.badRequest("invalid_value", "image_url",
                        "an image_url holds " + m.frames() + " frames: send a video as video_url");
            }
            return m;
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("invalid_value", part.video() ? "video_url" : "image_url", e.getMessage());
        }
    }

    private byte[] bytes(String url) {
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            try {
                return MediaIds.dataUrlBytes(url);
            } catch (IllegalArgumentException e) {
                throw ApiError.badRequest("invalid_value", "url", e.getMessage());
            }
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("invalid_value", "url", "not a URL: " + url);
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw ApiError.badRequest("invalid_value", "url", "media URLs are data:, http: or https:, was " + url);
        }
        try {
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    throw ApiError.badRequest("invalid_value", "url", "fetching " + url + " answered " + r.statusCode());
                }
                byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (b.length > maxBytes) {
                    throw ApiError.badRequest("invalid_value", "url", url + " is larger than " + maxBytes + " bytes");
                }
                return b;
            }
        } catch (IOException e) {
            throw ApiError.badRequest("invalid_value", "url", "could not fetch " + url + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiError.server(503, "interrupted", "interrupted while fetching media");
        }
    }
}
