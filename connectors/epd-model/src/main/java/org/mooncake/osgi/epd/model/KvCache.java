package org.mooncake.osgi.epd.model;

import org.mooncake.osgi.epd.model.internal.KvStore;

/**
 * Per-layer K and V for a growing sequence of tokens. Not thread-safe; one per request.
 * The export layout, {@code [layer][k=0|v=1][token][kvDim]} f32, is what travels through the
 * store: {@link #export} on the prefill side and {@link #append} on the decode side reproduce
 * the cache bit for bit.
 */
public final class KvCache {
    private final KvStore store;

    KvCache(KvStore store) {
        this.store = store;
    }

    public int layers() {
        return store.layers();
    }

    public int kvDim() {
        return store.kvDim();
    }

    /** Tokens held. */
    public int length() {
        return store.length();
    }

    /** Floats per token in the export layout: layers * 2 * kvDim. */
    public int floatsPerToken() {
        return store.floatsPerToken();
    }

    /** Writes tokens {@code [from,to)}: {@code (to-from)*floatsPerToken()} floats at {@code out[offset..]}, layout {@code [layer][k|v][token][dim]}. */
    public void export(int from, int to, float[] out, int offset) {
        store.export(from, to, out, offset);
    }

    /** Tokens {@code [from,to)} in the export layout, in a new array. */
    public float[] export(int from, int to) {
        float[] out = new float[Math.max(0, to - from) * floatsPerToken()];
        export(from, to, out, 0);
        return out;
    }

    /** Appends {@code tokens} tokens read in the export layout. */
    public void append(float[] in, int offset, int tokens) {
        store.append(in, offset, tokens);
    }

    /** Forgets all tokens from {@code length} on (e.g. to branch from a shared prefix). */
    public void truncate(int length) {
        store.truncate(length);
    }

    public KvCache copy() {
        return new KvCache(store.copy());
    }

    KvStore store() {
        return store;
    }
}
