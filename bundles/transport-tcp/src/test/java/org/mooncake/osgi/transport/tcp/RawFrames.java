package org.mooncake.osgi.transport.tcp;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.mooncake.osgi.store.master.DataGrant;

/**
 * Request frames built byte by byte from docs/protocol.md, independently of {@link Wire}, so that
 * the tests that speak them check the server, not the encoder they share with it.
 */
final class RawFrames {
    static final int MAGIC = 0x4D435431;

    private RawFrames() {
    }

    /** A version 2 request; {@code grant} null: grantLength 0. */
    static byte[] request(int op, long id, String segment, long offset, byte[] payloadOrNull, long length,
            DataGrant grant) {
        byte[] name = segment.getBytes(StandardCharsets.UTF_8);
        byte[] grantBytes = grant == null ? new byte[0] : grant(grant.write(), grant.offset(), grant.length(),
                grant.expiresAtMs(), grant.mac());
        int payload = payloadOrNull == null ? 0 : payloadOrNull.length;
        ByteBuffer b = ByteBuffer.allocate(33 + name.length + grantBytes.length + payload);
        b.putInt(MAGIC).put((byte) 2).put((byte) op).putShort((short) name.length).putLong(id).putLong(offset)
                .putLong(length).put((byte) grantBytes.length).put(name).put(grantBytes);
        if (payloadOrNull != null) {
            b.put(payloadOrNull);
        }
        return b.array();
    }

    /** A WRITE of {@code payload}. */
    static byte[] write(long id, String segment, long offset, byte[] payload, DataGrant grant) {
        return request(2, id, segment, offset, payload, payload.length, grant);
    }

    /** A READ of {@code length} bytes. */
    static byte[] read(long id, String segment, long offset, long length, DataGrant grant) {
        return request(1, id, segment, offset, null, length, grant);
    }

    /** A version 1 request: no grantLength byte, no grant. */
    static byte[] requestV1(int op, long id, String segment, long offset, byte[] payloadOrNull, long length) {
        byte[] name = segment.getBytes(StandardCharsets.UTF_8);
        int payload = payloadOrNull == null ? 0 : payloadOrNull.length;
        ByteBuffer b = ByteBuffer.allocate(32 + name.length + payload);
        b.putInt(MAGIC).put((byte) 1).put((byte) op).putShort((short) name.length).putLong(id).putLong(offset)
                .putLong(length).put(name);
        if (payloadOrNull != null) {
            b.put(payloadOrNull);
        }
        return b.array();
    }

    /** The 41 grant bytes: op, offset, length, expiresAtMs, mac. */
    static byte[] grant(boolean write, long offset, long length, long expiresAtMs, byte[] mac) {
        return ByteBuffer.allocate(41).put((byte) (write ? 2 : 1)).putLong(offset).putLong(length).putLong(expiresAtMs)
                .put(mac).array();
    }

    /** A response header as read: status, request id, length. */
    record Response(int status, long requestId, long length) {
        static Response read(InputStream in) throws IOException {
            DataInputStream d = new DataInputStream(in);
            if (d.readInt() != MAGIC) {
                throw new IOException("bad magic in response");
            }
            return new Response(d.readInt(), d.readLong(), d.readLong());
        }
    }
}
