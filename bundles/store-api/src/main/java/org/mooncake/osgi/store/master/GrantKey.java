package org.mooncake.osgi.store.master;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The secret a segment's owner shares with the master so that the master can sign
 * {@link DataGrant}s for that segment and the owner's transports can check them (since 3.1). The
 * owner makes one per segment ({@link #random}) and sends it with the mount, over the master RPC
 * (which must then be TLS: anyone who reads it can forge grants). It never leaves the master
 * again, and {@link #toString} does not show it.
 */
public record GrantKey(byte[] bytes) {
    /** The shortest key accepted: HMAC-SHA256 gains nothing beyond 32 bytes and is weak below 16. */
    public static final int MIN_BYTES = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    public GrantKey {
        if (bytes == null || bytes.length < MIN_BYTES || bytes.length > 64) {
            throw new IllegalArgumentException("a grant key has 16 to 64 bytes");
        }
        bytes = bytes.clone();
    }

    /** A fresh 32-byte key from a SecureRandom. */
    public static GrantKey random() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return new GrantKey(b);
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GrantKey k && MessageDigest.isEqual(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "GrantKey[" + bytes.length + " bytes, not shown]";
    }
}
