package org.mooncake.osgi.epd.model.internal;

import org.mooncake.osgi.epd.model.ModelConfig;
import org.mooncake.osgi.epd.model.Tokens;

/**
 * The language side: token embeddings, pre-norm blocks (RMS norm, causal multi-head attention
 * with rotary positions over the KV cache, GELU MLP), a final RMS norm and the LM head.
 * Every token row is computed by the same arithmetic whether it arrives in a prefill batch or
 * alone in a decode step, so incremental decoding equals recomputation bit for bit.
 */
public final class Decoder {
    private final ModelConfig cfg;
    private final float[][] embedding;
    private final Block[] blocks;
    private final float[] finalGain;
    private final float[][] lmHead;
    private final Rope rope;
    private final float scale;

    private record Block(float[] norm1, float[][] qkv, float[][] o, float[] norm2, float[][] mlp1, float[][] mlp2) {
    }

    public Decoder(ModelConfig cfg, Weights w) {
        this.cfg = cfg;
        int width = cfg.width();
        int kv = cfg.kvDim();
        embedding = w.matrix("dec.embed", Tokens.VOCAB, width, 1f);
        blocks = new Block[cfg.decoderLayers()];
        for (int l = 0; l < blocks.length; l++) {
            String p = "dec." + l + ".";
            // Untrained weights at the usual 1/sqrt(fan-in) scale attend almost uniformly, so one
            // context row barely moves the output. Larger query/key gains sharpen attention (less
            // in layer 0, so that decode steps still look at every cached key) and MLP gain 2
            // amplifies differences: single hidden-state elements and KV floats then visibly change
            // the answer (see AnswerSensitivityTest), as they do in a trained model.
            float attentionGain = l == 0 ? 2f : 3f;
            blocks[l] = new Block(w.around(p + "norm1", width, 1f, 0.1f),
                    w.matrix(p + "qkv", width, 3 * kv, attentionGain * inv(width)),
                    w.matrix(p + "o", kv, width, inv(kv)),
                    w.around(p + "norm2", width, 1f, 0.1f),
                    w.matrix(p + "mlp1", width, cfg.decoderMlp(), 2f * inv(width)),
                    w.matrix(p + "mlp2", cfg.decoderMlp(), width, inv(cfg.decoderMlp())));
        }
        finalGain = w.around("dec.norm", width, 1f, 0.1f);
        lmHead = w.matrix("dec.lm", width, Tokens.VOCAB, inv(width));
        rope = new Rope(cfg.headDim(), cfg.maxContext());
        scale = (float) (1.0 / StrictMath.sqrt(cfg.headDim()));
    }

    private static float inv(int fanIn) {
        return (float) (1.0 / StrictMath.sqrt(fanIn));
    }

    /** Copies token {@code id}'s embedding into {@code row}. */
    public void embed(int id, float[] row) {
        System.arraycopy(embedding[id], 0, row, 0, cfg.width());
    }

    /**
     * Runs {@code n} input rows at positions {@code cache.length() ..}, appending their K and V to
     * the cache; returns the logits after the last row. {@code x} is overwritten.
     */
    public float[] forward(float[][] x, int n, KvStore cache) {
        int pos0 = cache.length();
        if (pos0 + n > cfg.maxContext()) {
            throw new IllegalArgumentException("context of " + (pos0 + n) + " tokens exceeds maxContext "
                    + cfg.maxContext() + " of model " + cfg.name());
        }
        cache.ensureCapacity(pos0 + n);
        int width = cfg.width();
        int kv = cfg.kvDim();
        int heads = cfg.decoderHeads();
        float[][] xn = new float[n][width];
        float[][] qkv = new float[n][3 * kv];
        float[][] attn = new float[n][kv];
        float[][] o = new float[n][width];
        float[][] hidden = new float[n][cfg.decoderMlp()];
        float[] scores = new float[pos0 + n];
        for (int l = 0; l < blocks.length; l++) {
            Block b = blocks[l];
            for (int r = 0; r < n; r++) {
                Norm.rmsNorm(x[r], b.norm1, xn[r]);
            }
            Linear.matmul(xn, n, b.qkv, qkv);
            for (int r = 0; r < n; r++) {
                rope.rotate(qkv[r], 0, heads, pos0 + r);
                rope.rotate(qkv[r], kv, heads, pos0 + r);
                cache.put(l, pos0 + r, qkv[r], kv, 2 * kv);
            }
            for (int r = 0; r < n; r++) {
                Attention.attend(qkv[r], 0, scale, cache.keysT(l), cache.values(l), pos0 + r + 1, heads,
                        cfg.headDim(), scores, attn[r]);
            }
            Linear.matmul(attn, n, b.o, o);
            for (int r = 0; r < n; r++) {
                Linear.add(o[r], x[r], width);
                Norm.rmsNorm(x[r], b.norm2, xn[r]);
            }
            Linear.matmul(xn, n, b.mlp1, hidden);
            for (int r = 0; r < n; r++) {
                Gelu.apply(hidden[r], hidden[r].length);
            }
            Linear.matmul(hidden, n, b.mlp2, o);
            for (int r = 0; r < n; r++) {
                Linear.add(o[r], x[r], width);
            }
        }
        cache.setLength(pos0 + n);
        float[][] last = {new float[width]};
        Norm.rmsNorm(x[n - 1], finalGain, last[0]);
        float[][] logits = {new float[Tokens.VOCAB]};
        Linear.matmul(last, 1, lmHead, logits);
        return logits[0];
    }

    /** The generatable id with the highest logit; ties go to the lowest id. */
    public static int greedy(float[] logits) {
        int best = -1;
        float bestLogit = 0f;
        for (int id = 0; id < Tokens.VOCAB; id++) {
            if (Tokens.generatable(id) && (best < 0 || logits[id] > bestLogit)) {
                best = id;
                bestLogit = logits[id];
            }
        }
        return best;
    }
}
