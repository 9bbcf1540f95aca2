package org.mooncake.osgi.store.master;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The master's permission to READ or WRITE {@code length} bytes at {@code offset} of one segment
 * until {@code expiresAtMs} (the master's wall clock, judged by the segment owner's: clocks are
 * assumed synchronised, as HDFS block tokens assume), since 3.1. The master signs it with the
 * segment's {@link GrantKey}; a transport that serves the segment to other processes over a
 * network checks it on every request ({@link #check}), so a peer touches only the bytes of an
 * object it was granted, and a request that arrives after its put was revoked (a stalled peer's
 * late WRITE) is refused once expired. The grant is a bearer token: whoever holds it may use it
 * until it expires.
 *
 * <p>{@code mac}: the first 16 bytes of HMAC-SHA256 under the key over {@link #signedBytes}:
 * {@code "mooncake-grant-1"}, the segment name (length as an unsigned 16-bit big-endian integer,
 * then UTF-8), the op (1 READ, 2 WRITE), then offset, length and expiry as signed 64-bit
 * big-endian integers.
 */
public record DataGrant(boolean write, long offset, long length, long expiresAtMs, byte[] mac) {
    public static final int MAC_BYTES = 16;
    private static final byte[] DOMAIN = "mooncake-grant-1".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    });

    /** What a {@link #check} found. */
    public enum Check {
        PERMITTED, FORGED, EXPIRED, WRONG_OPERATION, OUT_OF_RANGE
    }

    public DataGrant {
        if (offset < 0 || length <= 0 || mac == null || mac.length != MAC_BYTES) {
            throw new IllegalArgumentException("a grant has offset >= 0, length > 0 and a 16-byte mac");
        }
        mac = mac.clone();
    }

    /** A grant for {@code segmentName} signed with {@code key}. */
    public static DataGrant sign(GrantKey key, String segmentName, boolean write, long offset, long length,
            long expiresAtMs) {
        return new DataGrant(write, offset, length, expiresAtMs,
                mac(key, signedBytes(segmentName, write, offset, length, expiresAtMs)));
    }

    /**
     * Whether this grant lets a request {@code write} (or read) {@code requestLength} bytes at
     * {@code requestOffset} of {@code segmentName} at {@code nowMs}: the signature first, so that
     * a forged grant learns nothing else.
     */
    public Check check(GrantKey key, String segmentName, boolean requestWrite, long requestOffset,
            long requestLength, long nowMs) {
        byte[] expected = mac(key, signedBytes(segmentName, write, offset, length, expiresAtMs));
        if (!MessageDigest.isEqual(expected, mac)) {
            return Check.FORGED;
        }
        if (nowMs >= expiresAtMs) {
            return Check.EXPIRED;
        }
        if (requestWrite != write) {
            return Check.WRONG_OPERATION;
        }
        if (requestOffset < offset || requestLength < 0 || requestOffset - offset > length - requestLength) {
            return Check.OUT_OF_RANGE;
        }
        return Check.PERMITTED;
    }

    /** The bytes the mac covers (see the class comment). */
    public static byte[] signedBytes(String segmentName, boolean write, long offset, long length, long expiresAtMs) {
        byte[] name = segmentName.getBytes(StandardCharsets.UTF_8);
        if (name.length > 0xFFFF) {
            throw new IllegalArgumentException("segment name too long");
        }
        return ByteBuffer.allocate(DOMAIN.length + 2 + name.length + 1 + 24).put(DOMAIN).putShort((short) name.length)
                .put(name).put((byte) (write ? 2 : 1)).putLong(offset).putLong(length).putLong(expiresAtMs).array();
    }

    private static byte[] mac(GrantKey key, byte[] data) {
        Mac m = HMAC.get();
        try {
            m.init(new SecretKeySpec(key.bytes(), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return Arrays.copyOf(m.doFinal(data), MAC_BYTES);
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DataGrant g && g.write == write && g.offset == offset && g.length == length
                && g.expiresAtMs == expiresAtMs && Arrays.equals(g.mac, mac);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset * 31 + expiresAtMs) ^ Arrays.hashCode(mac);
    }

    @Override
    public String toString() {
        return "DataGrant[" + (write ? "WRITE " : "READ ") + length + " bytes at " + offset + " until " + expiresAtMs
                + ", mac " + HexFormat.of().formatHex(mac, 0, 4) + "…]";
    }
}
