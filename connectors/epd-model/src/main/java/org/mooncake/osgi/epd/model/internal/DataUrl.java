package org.mooncake.osgi.epd.model.internal;

import java.util.Base64;
import java.util.Locale;

/** Parses {@code data:image/<type>;base64,<payload>} URLs (RFC 2397), the form OpenAI-style image_url uses. */
public final class DataUrl {
    private DataUrl() {
    }

    public static byte[] decode(String url) {
        if (url == null || !url.regionMatches(true, 0, "data:", 0, 5)) {
            throw ImageDecoder.corrupt("not a data: URL", null);
        }
        int comma = url.indexOf(',');
        if (comma < 0) {
            throw ImageDecoder.corrupt("data: URL without ','", null);
        }
        String header = url.substring(5, comma);
        String mediaType = header.contains(";") ? header.substring(0, header.indexOf(';')) : header;
        if (!mediaType.isEmpty() && !mediaType.regionMatches(true, 0, "image/", 0, 6)) {
            throw ImageDecoder.corrupt("data: URL of media type " + mediaType, null);
        }
        if (!header.toLowerCase(Locale.ROOT).endsWith(";base64")) {
            throw ImageDecoder.corrupt("data: URL is not base64", null);
        }
        try {
            return Base64.getDecoder().decode(url.substring(comma + 1).replaceAll("\\s+", ""));
        } catch (IllegalArgumentException e) {
            throw ImageDecoder.corrupt("bad base64 in data: URL: " + e.getMessage(), e);
        }
    }
}
