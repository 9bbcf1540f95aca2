package org.mooncake.osgi.transport.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

import org.mooncake.osgi.store.master.DataGrant;

/**
 * The data-path frames, big-endian (docs/protocol.md, section 2).
 *
 * <pre>
 * request  = magic:int32 version:int8(=2) op:int8 nameLength:int16 requestId:int64 offset:int64 length:int64
 *            grantLength:int8 name:UTF-8[nameLength] grant[grantLength]  (WRITE: payload[length] follows)
 * grant    = grantOp:int8 (1 READ, 2 WRITE) grantOffset:int64 grantLength:int64 grantExpiresAtMs:int64 mac:byte[16]
 * response = magic:int32 status:int32 requestId:int64 length:int64     (READ ok: payload[length] follows)
 * </pre>
 * grantLength is 0 (no grant) or {@value #GRANT_BYTES}. Version 1 frames (no grantLength, no
 * grant) are still read, as requests without a grant; requests are written as version 2 only. A
 * frame that breaks these rules ends its connection; nothing else is affected.
 */
final class Wire {
    static final int MAGIC = 0x4D43_5431; // "MCT1"
    static final byte VERSION = 2;
    /** Requests without the grant fields: read, never written. */
    static final byte VERSION_1 = 1;
    static final byte READ = 1;
    static final byte WRITE = 2;
    /** The fixed part of a version 1 request; version 2 adds the grantLength byte. */
    static final int REQUEST_HEADER_V1 = 4 + 1 + 1 + 2 + 8 + 8 + 8;
    static final int REQUEST_HEADER = REQUEST_HEADER_V1 + 1;
    static final int GRANT_BYTES = 1 + 8 + 8 + 8 + DataGrant.MAC_BYTES;
    static final int RESPONSE_HEADER = 4 + 4 + 8 + 8;
    static final int MAX_NAME = 1024;

    static final int OK = 0;
    static final int NO_SEGMENT = -1;
    static final int OUT_OF_RANGE = -2;
    static final int FAILED = -3;
    /** The segment checks grants, and this request's is missing or does not permit it. */
    static final int ACCESS_DENIED = -4;

    private Wire() {
    }

    /** A request; {@code grant} null: none was sent. */
    record Request(byte op, long requestId, String segment, long offset, long length, DataGrant grant) {
        Request(byte op, long requestId, String segment, long offset, long length) {
            this(op, requestId, segment, offset, length, null);
        }
    }

    /** The request and, for a WRITE, its payload: on a plain link one gathering write, one system call for both when they fit. */
    static void writeRequest(Link link, Request r, MemorySegment payload) throws IOException {
        byte[] name = r.segment.getBytes(StandardCharsets.UTF_8);
        DataGrant g = r.grant;
        ByteBuffer b = ByteBuffer.allocate(REQUEST_HEADER + name.length + (g == null ? 0 : GRANT_BYTES));
        b.putInt(MAGIC).put(VERSION).put(r.op).putShort((short) name.length).putLong(r.requestId).putLong(r.offset)
                .putLong(r.length).put((byte) (g == null ? 0 : GRANT_BYTES)).put(name);
        if (g != null) {
            b.put(g.write() ? WRITE : READ).putLong(g.offset()).putLong(g.length()).putLong(g.expiresAtMs()).put(g.mac());
        }
        link.write(b.flip(), payload);
    }

    /**
     * Reads a request header, version 2 or 1; throws {@link ProtocolException} on anything
     * malformed. Two reads: the fixed part with one byte more (a version 2 grantLength, or a
     * version 1 name's first byte), then the rest of the name and the grant.
     */
    static Request readRequest(Link link, long maxLength) throws IOException {
        ByteBuffer b = link.readFully(ByteBuffer.allocate(REQUEST_HEADER));
        if (b.getInt() != MAGIC) {
            throw new ProtocolException("bad magic");
        }
        byte version = b.get();
        if (version != VERSION && version != VERSION_1) {
            throw new ProtocolException("unsupported version " + version);
        }
        byte op = b.get();
        int nameLength = Short.toUnsignedInt(b.getShort());
        long id = b.getLong();
        long offset = b.getLong();
        long length = b.getLong();
        if (op != READ && op != WRITE) {
            throw new ProtocolException("unknown op " + op);
        }
        if (nameLength == 0 || nameLength > MAX_NAME || offset < 0 || length <= 0 || length > maxLength) {
            throw new ProtocolException("bad request fields");
        }
        int grantLength = version == VERSION ? Byte.toUnsignedInt(b.get()) : 0;
        if (grantLength != 0 && grantLength != GRANT_BYTES) {
            throw new ProtocolException("grant length must be 0 or " + GRANT_BYTES + ", was " + grantLength);
        }
        ByteBuffer rest = ByteBuffer.allocate(nameLength + grantLength);
        if (version == VERSION_1) {
            rest.put(b.get()); // the name's first byte came with the header
        }
        link.readFully(rest);
        String name = StandardCharsets.UTF_8.decode(rest.slice(0, nameLength)).toString();
        return new Request(op, id, name, offset, length, grantLength == 0 ? null : grant(rest.position(nameLength)));
    }

    private static DataGrant grant(ByteBuffer b) throws ProtocolException {
        byte op = b.get();
        long offset = b.getLong();
        long length = b.getLong();
        long expiresAtMs = b.getLong();
        byte[] mac = new byte[DataGrant.MAC_BYTES];
        b.get(mac);
        if (op != READ && op != WRITE || offset < 0 || length <= 0) {
            throw new ProtocolException("bad grant fields");
        }
        return new DataGrant(op == WRITE, offset, length, expiresAtMs, mac);
    }

    static void writeResponse(Link link, int status, long requestId, long length) throws IOException {
        writeResponse(link, status, requestId, length, null);
    }

    /** The response and, for a READ, its payload (one gathering write on a plain link). */
    static void writeResponse(Link link, int status, long requestId, long length, MemorySegment payload)
            throws IOException {
        ByteBuffer b = ByteBuffer.allocate(RESPONSE_HEADER);
        b.putInt(MAGIC).putInt(status).putLong(requestId).putLong(length).flip();
        link.write(b, payload);
    }

    /** Returns the status after checking the response belongs to {@code requestId}. */
    static int readResponse(Link link, long requestId, long length) throws IOException {
        ByteBuffer b = link.readFully(ByteBuffer.allocate(RESPONSE_HEADER));
        if (b.getInt() != MAGIC) {
            throw new ProtocolException("bad magic in response");
        }
        int status = b.getInt();
        if (b.getLong() != requestId || status == OK && b.getLong() != length) {
            throw new ProtocolException("response does not match its request");
        }
        return status;
    }

    /** Bytes bounced at a time through a buffer for memory a ByteBuffer cannot view (see {@link #viewable}). */
    static final int BOUNCE_BYTES = 256 << 10;

    /**
     * Whether a ByteBuffer can view {@code data}: native memory, or a heap segment over a {@code
     * byte[]}. One over a {@code float[]} (or another primitive array) cannot: {@code asByteBuffer}
     * throws for it, so its bytes go through a bounce buffer instead.
     */
    static boolean viewable(MemorySegment data) {
        return data.isNative() || data.heapBase().map(base -> base instanceof byte[]).orElse(true);
    }

    /** Moves a whole memory segment to the socket; for native memory the kernel copies straight from it. */
    static void send(SocketChannel ch, MemorySegment data) throws IOException {
        if (!viewable(data)) {
            bounce(data, piece -> writeFully(ch, piece), true);
            return;
        }
        for (long off = 0; off < data.byteSize(); off += Integer.MAX_VALUE) {
            writeFully(ch, data.asSlice(off, Math.min(Integer.MAX_VALUE, data.byteSize() - off)).asByteBuffer());
        }
    }

    /** Fills a whole memory segment from the socket, straight into it for native memory. */
    static void receive(SocketChannel ch, MemorySegment into) throws IOException {
        if (!viewable(into)) {
            bounce(into, piece -> readFully(ch, piece), false);
            return;
        }
        for (long off = 0; off < into.byteSize(); off += Integer.MAX_VALUE) {
            readFully(ch, into.asSlice(off, Math.min(Integer.MAX_VALUE, into.byteSize() - off)).asByteBuffer());
        }
    }

    private interface Io {
        void run(ByteBuffer piece) throws IOException;
    }

    /** {@code data} through a byte[] buffer, a piece at a time: copied out before each send, in after each receive. */
    private static void bounce(MemorySegment data, Io io, boolean sending) throws IOException {
        byte[] buffer = new byte[(int) Math.min(BOUNCE_BYTES, data.byteSize())];
        MemorySegment bytes = MemorySegment.ofArray(buffer);
        for (long off = 0; off < data.byteSize(); off += buffer.length) {
            int n = (int) Math.min(buffer.length, data.byteSize() - off);
            if (sending) {
                MemorySegment.copy(data, off, bytes, 0, n);
            }
            io.run(ByteBuffer.wrap(buffer, 0, n));
            if (!sending) {
                MemorySegment.copy(bytes, 0, data, off, n);
            }
        }
    }

    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /**
     * Polls {@code in} (a connection's stream, whose {@code available()} asks the kernel without
     * reading) for up to {@code spinNanos} before the caller's blocking read. A thread that blocks
     * lets its CPU go idle, and on a VM waking an idle vCPU for the next frame costs tens of
     * microseconds (about 40 per round trip on our 2-vCPU test VM); a short poll keeps it awake
     * when the next frame is close. Returns as soon as a byte is waiting, or the time is up.
     */
    static void awaitReadable(InputStream in, long spinNanos) throws IOException {
        if (spinNanos <= 0) {
            return;
        }
        long deadline = System.nanoTime() + spinNanos;
        while (in.available() == 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    static ByteBuffer readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("peer closed the connection");
            }
        }
        return b.flip();
    }

    /** A frame broke the protocol: the connection is closed. */
    static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }
}
