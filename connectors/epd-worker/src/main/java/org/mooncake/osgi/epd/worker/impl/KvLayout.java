package org.mooncake.osgi.epd.worker.impl;

import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.api.PrefixHashes;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorSpec;
import org.mooncake.osgi.epd.model.KvCache;
import org.mooncake.osgi.epd.model.Model;
import org.mooncake.osgi.epd.model.PromptPart;

/**
 * A prompt's KV as store blocks: its token ids, which media item each placeholder stands for,
 * and the prefix hash of each block of {@code blockTokens}. A block holds the KV of its tokens as
 * an f32 tensor {@code [layers, k|v, tokens, kv dim]} (the model's export layout), with the
 * tensor header in front in the store, so a decode checks each block's shape before using it.
 */
record KvLayout(int[] tokens, String[] mediaAt, int blockTokens, List<byte[]> hashes) {

    static KvLayout of(Model model, List<PromptPart> prompt, int blockTokens) {
        int[] tokens = model.tokenIds(prompt);
        String[] mediaAt = new String[tokens.length];
        int pos = 1; // BOS
        for (PromptPart p : prompt) {
            switch (p) {
                case PromptPart.Text t -> pos += t.text().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                case PromptPart.MediaItem m -> {
                    pos++; // media start
                    for (int i = 0; i < m.tokens(); i++) {
                        mediaAt[pos++] = m.itemId();
                    }
                    pos++; // media end
                }
            }
        }
        if (pos != tokens.length) {
            throw new IllegalStateException("prompt layout of " + pos + " tokens, the model counts " + tokens.length);
        }
        return new KvLayout(tokens, mediaAt, blockTokens, PrefixHashes.of(tokens, mediaAt, blockTokens));
    }

    int blocks() {
        return hashes.size();
    }

    int from(int block) {
        return block * blockTokens;
    }

    int length(int block) {
        return Math.min(blockTokens, tokens.length - from(block));
    }

    TensorSpec spec(Model model, int block) {
        return new TensorSpec(DType.F32, new long[] {model.config().decoderLayers(), 2, length(block),
                model.config().kvDim()});
    }

    /** Block {@code i} of a filled cache, as the tensor the store holds. */
    Tensor block(Model model, KvCache cache, int i) {
        float[] kv = cache.export(from(i), from(i) + length(i));
        return Tensor.ofFloats(kv, spec(model, i).shape());
    }

    /** Appends loaded blocks {@code [0, n)} to {@code cache}. */
    static void append(KvCache cache, List<Tensor> blocks, int n, KvLayout layout) {
        for (int i = 0; i < n; i++) {
            float[] kv = (float[]) blocks.get(i).data().heapBase().orElseThrow();
            cache.append(kv, 0, layout.length(i));
        }
    }

    /** Block tensors to load into, one per block. */
    List<Tensor> targets(Model model) {
        List<Tensor> out = new ArrayList<>(blocks());
        for (int i = 0; i < blocks(); i++) {
            out.add(org.mooncake.osgi.epd.api.support.TensorObjects.allocate(spec(model, i)));
        }
        return out;
    }
}
