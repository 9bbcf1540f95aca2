package org.mooncake.osgi.store.rpc.impl;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Writes a master frame as the annotated hex of {@code docs/protocol.md}: one CBOR item a line,
 * indented by nesting, with what it encodes in a comment. A test that finds the document out of
 * date prints this for the frame the encoder makes, ready to paste.
 */
final class CborAnnotator {
    private static final int COMMENT_COLUMN = 40;
    private static final int PAYLOAD_LINE_BYTES = 24;
    private static final HexFormat HEX = HexFormat.of();

    private final ByteBuffer in;
    private final StringBuilder out = new StringBuilder();

    private CborAnnotator(byte[] body) {
        this.in = ByteBuffer.wrap(body);
    }

    static String frame(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int magic = b.getInt();
        int length = b.getInt();
        byte[] body = new byte[b.remaining()];
        b.get(body);
        CborAnnotator a = new CborAnnotator(body);
        a.line(0, "%08x".formatted(magic), "magic \"MCR1\"");
        a.line(0, "%08x".formatted(length), "body length: " + length + " bytes");
        a.item(0, "");
        if (a.in.hasRemaining()) {
            throw new IllegalArgumentException("bytes after the body's item");
        }
        return a.out.toString();
    }

    private void line(int depth, String hex, String comment) {
        String code = "  ".repeat(depth) + hex;
        out.append(code).append(" ".repeat(Math.max(1, COMMENT_COLUMN - code.length()))).append("# ").append(comment)
                .append('\n');
    }

    /** One item, {@code role} prefixed to its comment (a map key's name for its value). */
    private void item(int depth, String role) {
        int start = in.position();
        int initial = Byte.toUnsignedInt(in.get());
        int major = initial >>> 5;
        int info = initial & 0x1f;
        if (info == 31) {
            indefinite(depth, role, initial, major);
            return;
        }
        long arg = argument(info, major);
        String head = HEX.formatHex(in.array(), start, start + 1)
                + (in.position() > start + 1 ? " " + HEX.formatHex(in.array(), start + 1, in.position()) : "");
        switch (major) {
            case 0 -> line(depth, head, role + Long.toUnsignedString(arg));
            case 1 -> line(depth, head, role + negative(arg));
            case 2, 3 -> {
                byte[] payload = new byte[(int) arg];
                in.get(payload);
                String shown = major == 3 ? "\"" + new String(payload, StandardCharsets.UTF_8) + "\""
                        : "bytes[" + arg + "]";
                int first = Math.min(payload.length, PAYLOAD_LINE_BYTES);
                line(depth, head + " " + HEX.formatHex(payload, 0, first), role + shown);
                for (int from = first; from < payload.length; from += PAYLOAD_LINE_BYTES) {
                    int to = Math.min(payload.length, from + PAYLOAD_LINE_BYTES);
                    line(depth + 1, HEX.formatHex(payload, from, to), "(continued)");
                }
            }
            case 4 -> {
                line(depth, head, role + "array(" + arg + ")");
                for (long i = 0; i < arg; i++) {
                    item(depth + 1, "");
                }
            }
            case 5 -> {
                line(depth, head, role + "map(" + arg + ")");
                for (long i = 0; i < arg; i++) {
                    entry(depth + 1);
                }
            }
            case 7 -> line(depth, head, role + simple(info, arg));
            default -> throw new IllegalArgumentException("CBOR major type " + major + " is not used by the protocol");
        }
    }

    private void entry(int depth) {
        int before = out.length();
        item(depth, "key ");
        int comment = out.indexOf("# key ", before) + 6;
        String key = out.substring(comment, out.indexOf("\n", comment));
        item(depth + 1, key + ": ");
    }

    private void indefinite(int depth, String role, int initial, int major) {
        String kind = switch (major) {
            case 4 -> "array";
            case 5 -> "map";
            default -> throw new IllegalArgumentException("indefinite CBOR major type " + major);
        };
        line(depth, "%02x".formatted(initial), role + kind + " (indefinite length, ends at ff)");
        while (Byte.toUnsignedInt(in.get(in.position())) != 0xff) {
            if (major == 5) {
                entry(depth + 1);
            } else {
                item(depth + 1, "");
            }
        }
        in.get();
        line(depth, "ff", "end of " + kind);
    }

    private long argument(int info, int major) {
        if (major == 7 && info >= 25 && info <= 27) {
            return info == 25 ? Short.toUnsignedLong(in.getShort()) : info == 26 ? Integer.toUnsignedLong(in.getInt()) : in.getLong();
        }
        return switch (info) {
            case 24 -> Byte.toUnsignedLong(in.get());
            case 25 -> Short.toUnsignedLong(in.getShort());
            case 26 -> Integer.toUnsignedLong(in.getInt());
            case 27 -> in.getLong();
            default -> {
                if (info > 27) {
                    throw new IllegalArgumentException("reserved CBOR additional information " + info);
                }
                yield info;
            }
        };
    }

    /** A negative integer -1 - arg, beyond 32 bits with its 64-bit two's complement (how a signed checksum reads unsigned). */
    private static String negative(long arg) {
        if (arg < 0) {
            return "below -2^63 (no Java long)";
        }
        long value = -1 - arg;
        return value < Integer.MIN_VALUE ? value + " (int64; as uint64 0x%016x)".formatted(value) : String.valueOf(value);
    }

    private static String simple(int info, long arg) {
        return switch (info) {
            case 20 -> "false";
            case 21 -> "true";
            case 22 -> "null";
            case 25 -> "float16 " + Float.float16ToFloat((short) arg);
            case 26 -> "float32 " + Float.intBitsToFloat((int) arg);
            case 27 -> "float64 " + Double.longBitsToDouble(arg);
            default -> "simple value " + arg;
        };
    }
}
