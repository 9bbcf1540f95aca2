package org.mooncake.osgi.epd.proxy.impl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads a request body, refusing (413) one larger than the limit without reading past it. */
final class BodyLimit {
    private BodyLimit() {
    }

    /**
     * The body of {@code in}; a declared {@code Content-Length} over {@code limit} is refused before
     * reading, an undeclared (chunked) one as soon as it passes the limit.
     */
    static byte[] read(InputStream in, String contentLength, long limit) throws IOException {
        if (contentLength != null && !contentLength.isBlank()) {
            try {
                if (Long.parseLong(contentLength.strip()) > limit) {
                    throw ProxyError.tooLarge(limit);
                }
            } catch (NumberFormatException e) {
                throw ProxyError.badRequest("Content-Length is not a number", null, "invalid_value");
            }
        }
        if (in == null) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) > 0) {
            total += n;
            if (total > limit) {
                throw ProxyError.tooLarge(limit);
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }
}
