package org.mooncake.osgi.epd.model.internal;

import org.mooncake.osgi.epd.model.ModelConfig;

/**
 * The vision tower: linear patch embedding plus learned 2D position and frame embeddings,
 * pre-norm transformer blocks (window attention, the last block over the whole frame), a final
 * layer norm, and the Qwen2.5-VL merger (each mergeSize² block of patches concatenated, then an
 * MLP to the decoder's width). Frames of a video are encoded independently and concatenated.
 */
public final class VisionEncoder {
    /** Bump when the encoder's arithmetic changes: it is part of the encoder fingerprint. */
    public static final int CODE_VERSION = 1;

    private final ModelConfig cfg;
    private final float[][] patchW;
    private final float[] patchB;
    private final float[][] position;
    private final float[][] frameEmbedding;
    private final Block[] blocks;
    private final float[] finalGain;
    private final float[] finalBias;
    private final float[][] merge1;
    private final float[] merge1B;
    private final float[][] merge2;
    private final float[] merge2B;
    private final int[][] windows;
    private final int[][] fullFrame;

    private record Block(float[] ln1G, float[] ln1B, float[][] qkv, float[] qkvB, float[][] o, float[] oB,
            float[] ln2G, float[] ln2B, float[][] mlp1, float[] mlp1B, float[][] mlp2, float[] mlp2B) {
    }

    public VisionEncoder(ModelConfig cfg, Weights w) {
        this.cfg = cfg;
        int e = cfg.encoderWidth();
        int pd = cfg.patchDim();
        int mw = cfg.mergedWidth();
        patchW = w.matrix("enc.patch.w", pd, e, inv(pd));
        patchB = w.vector("enc.patch.b", e, 0.02f);
        position = w.matrix("enc.pos", cfg.patchesPerImage(), e, 0.5f);
        frameEmbedding = w.matrix("enc.frame", cfg.maxFrames(), e, 0.5f);
        blocks = new Block[cfg.encoderLayers()];
        for (int l = 0; l < blocks.length; l++) {
            String p = "enc." + l + ".";
            blocks[l] = new Block(w.around(p + "ln1.g", e, 1f, 0.1f), w.vector(p + "ln1.b", e, 0.02f),
                    w.matrix(p + "qkv.w", e, 3 * e, 1.5f * inv(e)), w.vector(p + "qkv.b", 3 * e, 0.02f),
                    w.matrix(p + "o.w", e, e, inv(e)), w.vector(p + "o.b", e, 0.02f),
                    w.around(p + "ln2.g", e, 1f, 0.1f), w.vector(p + "ln2.b", e, 0.02f),
                    w.matrix(p + "mlp1.w", e, cfg.encoderMlp(), inv(e)), w.vector(p + "mlp1.b", cfg.encoderMlp(), 0.02f),
                    w.matrix(p + "mlp2.w", cfg.encoderMlp(), e, inv(cfg.encoderMlp())), w.vector(p + "mlp2.b", e, 0.02f));
        }
        finalGain = w.around("enc.ln.g", e, 1f, 0.1f);
        finalBias = w.vector("enc.ln.b", e, 0.02f);
        merge1 = w.matrix("merge.mlp1.w", mw, mw, inv(mw));
        merge1B = w.vector("merge.mlp1.b", mw, 0.02f);
        // Merged rows come out at an RMS of about 0.33, so a one-element change is a sizeable
        // part of its row (the decoder normalizes each row) and moves the answer.
        merge2 = w.matrix("merge.mlp2.w", mw, cfg.width(), 0.5f * inv(mw));
        merge2B = w.vector("merge.mlp2.b", cfg.width(), 0.02f);
        windows = windowIndex(cfg.gridSize(), cfg.windowPatches());
        fullFrame = windowIndex(cfg.gridSize(), cfg.gridSize());
    }

    private static float inv(int fanIn) {
        return (float) (1.0 / StrictMath.sqrt(fanIn));
    }

    /** Patch indices of each window, windows and patches within them in row-major order. */
    private static int[][] windowIndex(int grid, int side) {
        int perSide = (grid + side - 1) / side;
        int[][] result = new int[perSide * perSide][];
        int w = 0;
        for (int wy = 0; wy < grid; wy += side) {
            for (int wx = 0; wx < grid; wx += side) {
                int h = Math.min(side, grid - wy);
                int wd = Math.min(side, grid - wx);
                int[] idx = new int[h * wd];
                int i = 0;
                for (int y = wy; y < wy + h; y++) {
                    for (int x = wx; x < wx + wd; x++) {
                        idx[i++] = y * grid + x;
                    }
                }
                result[w++] = idx;
            }
        }
        return result;
    }

    /**
     * Encodes frames (each imageSize² RGB in [0,1], HWC) into
     * {@code frames * tokensPerImage} rows of {@code width}, row-major.
     */
    public float[] encode(float[][] frames) {
        int t = cfg.tokensPerImage();
        float[] result = new float[frames.length * t * cfg.width()];
        EncoderScratch s = new EncoderScratch(cfg);
        for (int f = 0; f < frames.length; f++) {
            encodeFrame(frames[f], f, s);
            for (int i = 0; i < t; i++) {
                System.arraycopy(s.out[i], 0, result, (f * t + i) * cfg.width(), cfg.width());
            }
        }
        return result;
    }

    private void encodeFrame(float[] rgb, int frame, EncoderScratch s) {
        int p = cfg.patchesPerImage();
        embedPatches(rgb, s.patches);
        Linear.matmul(s.patches, p, patchW, patchB, s.x);
        for (int i = 0; i < p; i++) {
            Linear.add(position[i], s.x[i], s.x[i].length);
            Linear.add(frameEmbedding[frame], s.x[i], s.x[i].length);
        }
        for (int l = 0; l < blocks.length; l++) {
            block(blocks[l], cfg.fullAttention(l) ? fullFrame : windows, s);
        }
        for (int i = 0; i < p; i++) {
            Norm.layerNorm(s.x[i], finalGain, finalBias, s.xn[i]);
        }
        merge(s);
    }

    private void embedPatches(float[] rgb, float[][] patches) {
        int grid = cfg.gridSize();
        int ps = cfg.patchSize();
        int size = cfg.imageSize();
        for (int gy = 0; gy < grid; gy++) {
            for (int gx = 0; gx < grid; gx++) {
                float[] patch = patches[gy * grid + gx];
                int k = 0;
                for (int py = 0; py < ps; py++) {
                    int src = ((gy * ps + py) * size + gx * ps) * 3;
                    for (int i = 0; i < ps * 3; i++) {
                        patch[k++] = rgb[src + i] * 2f - 1f;
                    }
                }
            }
        }
    }

    private void block(Block b, int[][] attentionWindows, EncoderScratch s) {
        int p = cfg.patchesPerImage();
        for (int i = 0; i < p; i++) {
            Norm.layerNorm(s.x[i], b.ln1G, b.ln1B, s.xn[i]);
        }
        Linear.matmul(s.xn, p, b.qkv, b.qkvB, s.qkv);
        for (int[] window : attentionWindows) {
            attendWindow(window, s);
        }
        Linear.matmul(s.attn, p, b.o, b.oB, s.o);
        for (int i = 0; i < p; i++) {
            Linear.add(s.o[i], s.x[i], s.x[i].length);
            Norm.layerNorm(s.x[i], b.ln2G, b.ln2B, s.xn[i]);
        }
        Linear.matmul(s.xn, p, b.mlp1, b.mlp1B, s.hidden);
        for (int i = 0; i < p; i++) {
            Gelu.apply(s.hidden[i], s.hidden[i].length);
        }
        Linear.matmul(s.hidden, p, b.mlp2, b.mlp2B, s.o);
        for (int i = 0; i < p; i++) {
            Linear.add(s.o[i], s.x[i], s.x[i].length);
        }
    }

    private void attendWindow(int[] window, EncoderScratch s) {
        int e = cfg.encoderWidth();
        int heads = cfg.encoderHeads();
        int hd = e / heads;
        int n = window.length;
        for (int j = 0; j < n; j++) {
            float[] row = s.qkv[window[j]];
            for (int c = 0; c < e; c++) {
                s.keysT[c][j] = row[e + c];
            }
            System.arraycopy(row, 2 * e, s.values[j], 0, e);
        }
        float scale = (float) (1.0 / StrictMath.sqrt(hd));
        Attention.attendBlock(s.qkv, window, scale, s.keysT, s.values, heads, hd, s.scores, s.probsT, s.outT, s.inv,
                s.attn);
    }

    private void merge(EncoderScratch s) {
        int grid = cfg.gridSize();
        int m = cfg.mergeSize();
        int e = cfg.encoderWidth();
        int perSide = grid / m;
        int t = 0;
        for (int ty = 0; ty < perSide; ty++) {
            for (int tx = 0; tx < perSide; tx++) {
                float[] merged = s.merged[t++];
                int k = 0;
                for (int dy = 0; dy < m; dy++) {
                    for (int dx = 0; dx < m; dx++) {
                        System.arraycopy(s.xn[(ty * m + dy) * grid + tx * m + dx], 0, merged, k, e);
                        k += e;
                    }
                }
            }
        }
        int tokens = cfg.tokensPerImage();
        Linear.matmul(s.merged, tokens, merge1, merge1B, s.mergedHidden);
        for (int i = 0; i < tokens; i++) {
            Gelu.apply(s.mergedHidden[i], s.mergedHidden[i].length);
        }
        Linear.matmul(s.mergedHidden, tokens, merge2, merge2B, s.out);
    }
}
