package org.mooncake.osgi.epd.model.internal;

import java.util.Arrays;

/**
 * K and V of every decoder layer for a growing sequence. Keys are kept transposed
 * ({@code keysT[layer][channel][token]}) for the attention kernel, values as token rows; the
 * export layout is the plain {@code [layer][k=0|v=1][token][channel]}.
 */
public final class KvStore {
    private static final int MIN_CAPACITY = 64;
    private final int layers;
    private final int kvDim;
    private int length;
    private int capacity;
    private float[][][] keysT;
    private float[][][] values;

    public KvStore(int layers, int kvDim) {
        this.layers = layers;
        this.kvDim = kvDim;
        this.keysT = new float[layers][kvDim][0];
        this.values = new float[layers][0][];
    }

    public int layers() {
        return layers;
    }

    public int kvDim() {
        return kvDim;
    }

    public int length() {
        return length;
    }

    public float[][] keysT(int layer) {
        return keysT[layer];
    }

    public float[][] values(int layer) {
        return values[layer];
    }

    /** Makes room for {@code tokens} tokens in all. */
    public void ensureCapacity(int tokens) {
        if (tokens <= capacity) {
            return;
        }
        int grown = Math.max(tokens, Math.max(MIN_CAPACITY, capacity * 2));
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < kvDim; c++) {
                keysT[l][c] = Arrays.copyOf(keysT[l][c], grown);
            }
            values[l] = Arrays.copyOf(values[l], grown);
            for (int t = capacity; t < grown; t++) {
                values[l][t] = new float[kvDim];
            }
        }
        capacity = grown;
    }

    /** Stores token {@code pos}'s K (at {@code kOff}) and V (at {@code vOff}) of {@code row} for a layer. */
    public void put(int layer, int pos, float[] row, int kOff, int vOff) {
        float[][] kt = keysT[layer];
        for (int c = 0; c < kvDim; c++) {
            kt[c][pos] = row[kOff + c];
        }
        System.arraycopy(row, vOff, values[layer][pos], 0, kvDim);
    }

    /** Marks tokens {@code [0, length)} as held; called once all layers of them are stored. */
    public void setLength(int length) {
        if (length < 0 || length > capacity) {
            throw new IllegalArgumentException("length " + length + " outside capacity " + capacity);
        }
        this.length = length;
    }

    public int floatsPerToken() {
        return layers * 2 * kvDim;
    }

    public void export(int from, int to, float[] out, int offset) {
        if (from < 0 || to > length || from > to) {
            throw new IndexOutOfBoundsException("tokens [" + from + "," + to + ") of " + length);
        }
        int n = to - from;
        if (offset < 0 || (long) n * floatsPerToken() > out.length - (long) offset) {
            throw new IndexOutOfBoundsException("export of " + n + " tokens needs " + (long) n * floatsPerToken()
                    + " floats at offset " + offset + " of " + out.length);
        }
        int o = offset;
        for (int l = 0; l < layers; l++) {
            float[][] kt = keysT[l];
            for (int t = from; t < to; t++) {
                for (int c = 0; c < kvDim; c++) {
                    out[o++] = kt[c][t];
                }
            }
            for (int t = from; t < to; t++) {
                System.arraycopy(values[l][t], 0, out, o, kvDim);
                o += kvDim;
            }
        }
    }

    public void append(float[] in, int offset, int tokens) {
        if (tokens < 0 || offset < 0 || (long) tokens * floatsPerToken() > in.length - (long) offset) {
            throw new IndexOutOfBoundsException("append of " + tokens + " tokens needs "
                    + (long) tokens * floatsPerToken() + " floats at offset " + offset + " of " + in.length);
        }
        int start = length;
        ensureCapacity(start + tokens);
        int i = offset;
        for (int l = 0; l < layers; l++) {
            float[][] kt = keysT[l];
            for (int t = start; t < start + tokens; t++) {
                for (int c = 0; c < kvDim; c++) {
                    kt[c][t] = in[i++];
                }
            }
            for (int t = start; t < start + tokens; t++) {
                System.arraycopy(in, i, values[l][t], 0, kvDim);
                i += kvDim;
            }
        }
        length = start + tokens;
    }

    /** Forgets tokens from {@code length} on, e.g. to reuse a shared prefix. */
    public void truncate(int newLength) {
        if (newLength < 0 || newLength > length) {
            throw new IllegalArgumentException("cannot truncate " + length + " tokens to " + newLength);
        }
        length = newLength;
    }

    public KvStore copy() {
        KvStore copy = new KvStore(layers, kvDim);
        copy.ensureCapacity(length);
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < kvDim; c++) {
                System.arraycopy(keysT[l][c], 0, copy.keysT[l][c], 0, length);
            }
            for (int t = 0; t < length; t++) {
                System.arraycopy(values[l][t], 0, copy.values[l][t], 0, kvDim);
            }
        }
        copy.length = length;
        return copy;
    }
}
