package org.mooncake.osgi.epd.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The id of a media item, derived from its content, so that the encoder that saves its hidden
 * state and the prefill worker that loads it agree on the key without talking to each other.
 * The EPD proxy injects it into each media part as {@code uuid}; a worker called directly computes
 * the same.
 *
 * <p>A {@code data:} URL's id is the SHA-256 of its decoded bytes (so the same image sent as
 * base64 with other line breaks, or under another media type, has one id). Any other URL's id is
 * the SHA-256 of the URL text: the proxy never fetches media (pixels and tensors never cross it),
 * so the content behind a remote URL is assumed to stay what it was.
 */
public final class MediaIds {
    /** The prefix of ids taken from a data URL's bytes. */
    public static final String BYTES_PREFIX = "sha256-";
    /** The prefix of ids taken from a remote URL's text. */
    public static final String URL_PREFIX = "url-sha256-";

    private static final java.util.regex.Pattern WHITESPACE = java.util.regex.Pattern.compile("\\s+");

    private MediaIds() {
    }

    /** The id of the media at {@code url}; IllegalArgumentException for a malformed data URL. */
    public static String of(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("media URL is empty");
        }
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            return BYTES_PREFIX + sha256(dataUrlBytes(url));
        }
        return URL_PREFIX + sha256(url.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The bytes of a {@code data:[<media type>][;base64],<data>} URL (RFC 2397): base64 (line
     * breaks and spaces ignored) or percent-encoded. IllegalArgumentException when malformed.
     */
    public static byte[] dataUrlBytes(String url) {
        if (url == null || !url.regionMatches(true, 0, "data:", 0, 5)) {
            throw new IllegalArgumentException("not a data URL");
        }
        int comma = url.indexOf(',');
        if (comma < 0) {
            throw new IllegalArgumentException("data URL has no ',' before its data");
        }
        String meta = url.substring(5, comma);
        String data = url.substring(comma + 1);
        try {
            if (meta.toLowerCase(java.util.Locale.ROOT).endsWith(";base64")) {
                return Base64.getDecoder().decode(WHITESPACE.matcher(data).replaceAll(""));
            }
            return URLDecoder.decode(data.replace("+", "%2B"), StandardCharsets.ISO_8859_1)
                    .getBytes(StandardCharsets.ISO_8859_1);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("data URL is malformed: " + e.getMessage());
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
