package org.mooncake.osgi.transport.ucx;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.mooncake.osgi.store.memory.HostIdentity;

/**
 * What a peer needs to reach one exposed segment, carried in its endpoint's address so that the
 * master is the only directory: the owner's host identity and UCP worker address, the segment's
 * base address, size and packed remote key, and its liveness word (address, remote key of the
 * owner's control page, token). The address string is {@code v1.} and the URL-safe base64 of
 * <pre>
 * host:u16-length+UTF-8  worker:u32-length+bytes  base:u64 size:u64  rkey:u16-length+bytes
 * control:u64  controlRkey:u16-length+bytes  token:u64      (big-endian)
 * </pre>
 */
record UcxAddress(String host, byte[] worker, long base, long size, byte[] rkey, long control, byte[] controlRkey,
        long token) {
    private static final String PREFIX = "v1.";

    String encode() {
        byte[] h = host.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + h.length + 4 + worker.length + 16 + 2 + rkey.length + 8 + 2
                + controlRkey.length + 8);
        b.putShort((short) h.length).put(h).putInt(worker.length).put(worker).putLong(base).putLong(size)
                .putShort((short) rkey.length).put(rkey).putLong(control).putShort((short) controlRkey.length)
                .put(controlRkey).putLong(token);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** The address, or an IllegalArgumentException saying why it is not one of ours. */
    static UcxAddress decode(String address) {
        if (!address.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a ucx v1 address: " + abbreviate(address));
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(address.substring(PREFIX.length())));
            String host = new String(bytes(b, Short.toUnsignedInt(b.getShort())), StandardCharsets.UTF_8);
            byte[] worker = bytes(b, b.getInt());
            long base = b.getLong();
            long size = b.getLong();
            byte[] rkey = bytes(b, Short.toUnsignedInt(b.getShort()));
            long control = b.getLong();
            byte[] controlRkey = bytes(b, Short.toUnsignedInt(b.getShort()));
            long token = b.getLong();
            if (b.hasRemaining() || size < 0 || worker.length == 0) {
                throw new IllegalArgumentException("malformed");
            }
            return new UcxAddress(host, worker, base, size, rkey, control, controlRkey, token);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a ucx v1 address (" + e.getMessage() + "): " + abbreviate(address), e);
        }
    }

    /** The owner's worker, as a map key: one endpoint per peer worker. */
    String workerKey() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(worker);
    }

    boolean sameHost() {
        return host.equals(HostIdentity.get());
    }

    private static byte[] bytes(ByteBuffer b, int n) {
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("length " + n + " past the end");
        }
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
