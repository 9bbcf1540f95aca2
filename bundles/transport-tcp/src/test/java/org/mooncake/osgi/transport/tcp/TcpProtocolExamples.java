package org.mooncake.osgi.transport.tcp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;

/**
 * The tcp transport frames of {@code docs/protocol.md}, as Java values: frames
 * {@code tcp-NAME-request} and {@code tcp-NAME-response}, served by a segment {@value #SEGMENT} of
 * {@value #SEGMENT_BYTES} bytes that holds {@code "hello"} at offset {@value #HELLO_AT} and checks
 * no grants, and a segment {@value #GRANTED_SEGMENT} of the same size that checks grants signed
 * with {@link #GRANT_KEY} (bytes 0x00 to 0x1f), at a clock before {@value #GRANT_EXPIRES_AT_MS}.
 */
final class TcpProtocolExamples {
    static final String SEGMENT = "seg-1";
    static final int SEGMENT_BYTES = 64 << 10;
    static final int HELLO_AT = 4096;
    static final int WORLD_AT = 8192;
    static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WORLD = "world".getBytes(StandardCharsets.US_ASCII);
    static final String GRANTED_SEGMENT = "seg-a";
    static final GrantKey GRANT_KEY = new GrantKey(java.util.stream.IntStream.range(0, 32)
            .collect(java.io.ByteArrayOutputStream::new, (o, i) -> o.write(i), (a, b) -> { }).toByteArray());
    /** store-api's golden grant vector: WRITE of 65536 bytes at 4096 of seg-a, mac d4868e5f2d591c6c1a4fbc224ec60b7b. */
    static final long GRANT_EXPIRES_AT_MS = 1_796_000_000_000L;
    static final DataGrant WRITE_GRANT = DataGrant.sign(GRANT_KEY, GRANTED_SEGMENT, true, 4096, 65536,
            GRANT_EXPIRES_AT_MS);
    /** The documented server's clock: a minute before the grant expires. */
    static final long SERVER_CLOCK_MS = GRANT_EXPIRES_AT_MS - 60_000;

    /**
     * @param requestPayload  what follows a WRITE request (null for a READ)
     * @param responsePayload what follows a READ response that succeeded (null otherwise)
     * @param closes          whether the server closes the connection after answering
     */
    record Example(String name, Wire.Request request, byte[] requestPayload, int status, long responseLength,
            byte[] responsePayload, boolean closes) {

        String requestFrame() {
            return "tcp-" + name + "-request";
        }

        String responseFrame() {
            return "tcp-" + name + "-response";
        }
    }

    /** One connection's requests, in order; none of them closes it. */
    static final List<Example> CONNECTION = List.of(
            new Example("read", new Wire.Request(Wire.READ, 1, SEGMENT, HELLO_AT, HELLO.length), null, Wire.OK,
                    HELLO.length, HELLO, false),
            new Example("write", new Wire.Request(Wire.WRITE, 2, SEGMENT, WORLD_AT, WORLD.length), WORLD, Wire.OK,
                    WORLD.length, null, false),
            new Example("read-out-of-range", new Wire.Request(Wire.READ, 3, SEGMENT, SEGMENT_BYTES - 4, HELLO.length),
                    null, Wire.OUT_OF_RANGE, 0, null, false),
            new Example("read-unknown-segment", new Wire.Request(Wire.READ, 4, "seg-9", 0, HELLO.length), null,
                    Wire.NO_SEGMENT, 0, null, false),
            new Example("write-granted", new Wire.Request(Wire.WRITE, 6, GRANTED_SEGMENT, WORLD_AT, WORLD.length,
                    WRITE_GRANT), WORLD, Wire.OK, WORLD.length, null, false),
            new Example("read-without-grant", new Wire.Request(Wire.READ, 7, GRANTED_SEGMENT, WORLD_AT, WORLD.length),
                    null, Wire.ACCESS_DENIED, 0, null, false));

    /** A WRITE the server cannot take: answered, then the connection is closed (its payload has nowhere to go). */
    static final Example REFUSED_WRITE = new Example("write-unknown-segment",
            new Wire.Request(Wire.WRITE, 5, "seg-9", 0, WORLD.length), WORLD, Wire.NO_SEGMENT, 0, null, true);

    static List<Example> all() {
        return java.util.stream.Stream.concat(CONNECTION.stream(), java.util.stream.Stream.of(REFUSED_WRITE)).toList();
    }

    private TcpProtocolExamples() {
    }

    private static final HexFormat HEX = HexFormat.of();

    /** A request frame as the annotated hex of the document. */
    static String annotateRequest(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        StringBuilder out = new StringBuilder();
        int magic = b.getInt();
        line(out, "%08x".formatted(magic), "magic \"MCT1\"");
        byte version = b.get();
        line(out, "%02x".formatted(version), "version " + version);
        byte op = b.get();
        line(out, "%02x".formatted(op), "op " + op + opName(op));
        int nameLength = Short.toUnsignedInt(b.getShort());
        line(out, "%04x".formatted(nameLength), "segment name length " + nameLength);
        line(out, "%016x".formatted(b.getLong()), "request id " + b.getLong(b.position() - 8));
        line(out, "%016x".formatted(b.getLong()), "offset " + b.getLong(b.position() - 8));
        long length = b.getLong();
        line(out, "%016x".formatted(length), "length " + length);
        int grantLength = version == Wire.VERSION_1 ? 0 : Byte.toUnsignedInt(b.get());
        if (version != Wire.VERSION_1) {
            line(out, "%02x".formatted(grantLength), "grantLength " + grantLength + (grantLength == 0 ? " (no grant)" : " (a grant follows the name)"));
        }
        byte[] name = new byte[nameLength];
        b.get(name);
        line(out, HEX.formatHex(name), "segment name \"" + new String(name, StandardCharsets.UTF_8) + "\"");
        if (grantLength > 0) {
            byte grantOp = b.get();
            line(out, "%02x".formatted(grantOp), "grant: op " + grantOp + opName(grantOp));
            line(out, "%016x".formatted(b.getLong()), "grant: offset " + b.getLong(b.position() - 8));
            line(out, "%016x".formatted(b.getLong()), "grant: length " + b.getLong(b.position() - 8));
            line(out, "%016x".formatted(b.getLong()), "grant: expiresAtMs " + b.getLong(b.position() - 8));
            byte[] mac = new byte[DataGrant.MAC_BYTES];
            b.get(mac);
            line(out, HEX.formatHex(mac), "grant: mac");
        }
        payload(out, b);
        return out.toString();
    }

    private static String opName(byte op) {
        return op == Wire.READ ? " READ" : op == Wire.WRITE ? " WRITE" : "";
    }

    /** A response frame as the annotated hex of the document. */
    static String annotateResponse(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        StringBuilder out = new StringBuilder();
        line(out, "%08x".formatted(b.getInt()), "magic \"MCT1\"");
        int status = b.getInt();
        line(out, "%08x".formatted(status), "status " + status + switch (status) {
            case Wire.OK -> " OK";
            case Wire.NO_SEGMENT -> " NO_SEGMENT";
            case Wire.OUT_OF_RANGE -> " OUT_OF_RANGE";
            case Wire.FAILED -> " FAILED";
            case Wire.ACCESS_DENIED -> " ACCESS_DENIED";
            default -> "";
        });
        line(out, "%016x".formatted(b.getLong()), "request id " + b.getLong(b.position() - 8));
        line(out, "%016x".formatted(b.getLong()), "length " + b.getLong(b.position() - 8));
        payload(out, b);
        return out.toString();
    }

    private static void payload(StringBuilder out, ByteBuffer b) {
        if (b.hasRemaining()) {
            byte[] payload = new byte[b.remaining()];
            b.get(payload);
            line(out, HEX.formatHex(payload), "payload, " + payload.length + " bytes: \""
                    + new String(payload, StandardCharsets.US_ASCII) + "\"");
        }
    }

    private static void line(StringBuilder out, String hex, String comment) {
        out.append(hex).append(" ".repeat(Math.max(1, 40 - hex.length()))).append("# ").append(comment).append('\n');
    }
}
