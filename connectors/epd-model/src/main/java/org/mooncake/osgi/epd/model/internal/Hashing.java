package org.mooncake.osgi.epd.model.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 helpers for fingerprints and payload hashes. */
public final class Hashing {
    private Hashing() {
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    /** The first 16 hex digits of the SHA-256 of {@code text} (UTF-8). */
    public static String shortHash(String text) {
        return sha256Hex(text.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
    }

    /** SHA-256 (hex) of floats as little-endian bits, without copying them to a byte array first. */
    public static String sha256Hex(float[][] rows) {
        MessageDigest digest = sha256();
        byte[] buffer = new byte[4096];
        int fill = 0;
        for (float[] row : rows) {
            for (float value : row) {
                int bits = Float.floatToRawIntBits(value);
                buffer[fill++] = (byte) bits;
                buffer[fill++] = (byte) (bits >>> 8);
                buffer[fill++] = (byte) (bits >>> 16);
                buffer[fill++] = (byte) (bits >>> 24);
                if (fill == buffer.length) {
                    digest.update(buffer, 0, fill);
                    fill = 0;
                }
            }
        }
        digest.update(buffer, 0, fill);
        return HexFormat.of().formatHex(digest.digest());
    }
}
