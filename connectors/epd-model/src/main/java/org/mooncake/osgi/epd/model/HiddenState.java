package org.mooncake.osgi.epd.model;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import org.mooncake.osgi.epd.model.internal.Hashing;

/**
 * An encoder output: {@code tokens} rows of {@code width} f32, row-major. Equality compares the
 * float bits, so two states are equal exactly when their payloads are byte-identical.
 */
public record HiddenState(int tokens, int width, float[] data) {

    public HiddenState {
        if (tokens < 0 || width <= 0) {
            throw new IllegalArgumentException("bad hidden state shape " + tokens + "x" + width);
        }
        if (data == null || data.length != (long) tokens * width) {
            throw new IllegalArgumentException("hidden state " + tokens + "x" + width + " needs "
                    + (long) tokens * width + " floats, got " + (data == null ? "null" : data.length));
        }
    }

    /** Size of the f32 payload in bytes. */
    public long bytes() {
        return (long) data.length * Float.BYTES;
    }

    /** The payload as little-endian f32, as stored in a Mooncake tensor object (dtype 0). */
    public byte[] toLittleEndianBytes() {
        ByteBuffer buffer = ByteBuffer.allocate(data.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asFloatBuffer().put(data);
        return buffer.array();
    }

    /** Reads {@code tokens x width} little-endian f32 from {@code bytes} at {@code offset}. */
    public static HiddenState fromLittleEndianBytes(int tokens, int width, byte[] bytes, int offset) {
        long floats = (long) tokens * width;
        if (offset < 0 || floats * Float.BYTES > bytes.length - (long) offset) {
            throw new IllegalArgumentException("need " + floats * Float.BYTES + " bytes at offset " + offset
                    + ", have " + (bytes.length - (long) offset));
        }
        float[] data = new float[(int) floats];
        ByteBuffer.wrap(bytes, offset, data.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(data);
        return new HiddenState(tokens, width, data);
    }

    /** SHA-256 (hex) of the little-endian payload: equal hashes mean byte-identical states. */
    public String sha256() {
        return Hashing.sha256Hex(toLittleEndianBytes());
    }

    /** Rows {@code [from, to)} as a new state, e.g. one frame of a video. */
    public HiddenState rows(int from, int to) {
        if (from < 0 || to > tokens || from > to) {
            throw new IndexOutOfBoundsException("rows [" + from + "," + to + ") of " + tokens);
        }
        return new HiddenState(to - from, width, Arrays.copyOfRange(data, from * width, to * width));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HiddenState that && tokens == that.tokens && width == that.width
                && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * tokens + width) + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "HiddenState[" + tokens + "x" + width + "]";
    }
}
