package org.mooncake.osgi.epd.model;

/**
 * Sizes of a model. The vision side turns each {@code imageSize}² frame into
 * ({@code imageSize/patchSize})² patches of {@code encoderWidth}; the merger folds each
 * {@code mergeSize}² block of patches into one decoder token of {@code width}. The decoder's
 * attention uses {@code decoderHeads * headDim} (which may be smaller than {@code width}).
 *
 * <p>Encoder layers attend within windows of {@link #windowPatches()}² patches, except the last,
 * which attends over the whole frame (as Qwen2.5-VL mixes window and full attention).
 */
public record ModelConfig(String name, int imageSize, int patchSize, int mergeSize, int encoderWidth, int encoderLayers,
        int encoderHeads, int encoderMlp, int width, int decoderLayers, int decoderHeads, int headDim, int decoderMlp,
        int maxFrames, int maxContext) {

    public ModelConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("model name is required");
        }
        positive("imageSize", imageSize);
        positive("patchSize", patchSize);
        positive("mergeSize", mergeSize);
        positive("encoderWidth", encoderWidth);
        positive("encoderLayers", encoderLayers);
        positive("encoderHeads", encoderHeads);
        positive("encoderMlp", encoderMlp);
        positive("width", width);
        positive("decoderLayers", decoderLayers);
        positive("decoderHeads", decoderHeads);
        positive("headDim", headDim);
        positive("decoderMlp", decoderMlp);
        positive("maxFrames", maxFrames);
        positive("maxContext", maxContext);
        if (imageSize % patchSize != 0 || (imageSize / patchSize) % mergeSize != 0) {
            throw new IllegalArgumentException("imageSize must be a multiple of patchSize * mergeSize");
        }
        if (encoderWidth % encoderHeads != 0) {
            throw new IllegalArgumentException("encoderWidth must be a multiple of encoderHeads");
        }
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException("headDim must be even (rotary pairs)");
        }
    }

    private static void positive(String what, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + value);
        }
    }

    /** For tests: 64x64 images, 8-pixel patches, 16 tokens per image. */
    public static ModelConfig tiny() {
        return new ModelConfig("tiny", 64, 8, 2, 32, 2, 2, 64, 64, 3, 4, 16, 128, 4, 512);
    }

    /** For the demo: 256 tokens of 1024 f32 per image (1 MiB), 8 MiB per 8-frame video. */
    public static ModelConfig demo() {
        return new ModelConfig("demo", 256, 8, 2, 128, 2, 4, 256, 1024, 2, 4, 32, 256, 8, 4096);
    }

    /** {@code "tiny"} or {@code "demo"}. */
    public static ModelConfig named(String name) {
        return switch (name == null ? "" : name) {
            case "tiny" -> tiny();
            case "demo" -> demo();
            default -> throw new IllegalArgumentException("unknown model config '" + name + "' (tiny | demo)");
        };
    }

    /** Patches along one side of a frame. */
    public int gridSize() {
        return imageSize / patchSize;
    }

    /** Patches per frame. */
    public int patchesPerImage() {
        return gridSize() * gridSize();
    }

    /** Floats in one patch: patchSize² RGB pixels. */
    public int patchDim() {
        return patchSize * patchSize * 3;
    }

    /** Side of an attention window, in patches: 4 merge blocks as in Qwen2.5-VL, at most the grid. */
    public int windowPatches() {
        return Math.min(gridSize(), 4 * mergeSize);
    }

    /** Whether encoder layer {@code layer} attends over the whole frame rather than windows. */
    public boolean fullAttention(int layer) {
        return layer == encoderLayers - 1 || windowPatches() == gridSize();
    }

    /** Tokens one image (one video frame) becomes after the merger. */
    public int tokensPerImage() {
        return patchesPerImage() / (mergeSize * mergeSize);
    }

    /** Width of a merged patch block, the merger MLP's input and hidden size. */
    public int mergedWidth() {
        return encoderWidth * mergeSize * mergeSize;
    }

    /** decoderHeads * headDim: floats of K (and of V) per layer per token. */
    public int kvDim() {
        return decoderHeads * headDim;
    }

    /** Bytes of an f32 hidden state of {@code frames} frames. */
    public long hiddenStateBytes(int frames) {
        return (long) tokensPerImage() * frames * width * Float.BYTES;
    }

    /** Bytes of f32 K and V of all layers for one token. */
    public long kvBytesPerToken() {
        return (long) decoderLayers * 2 * kvDim() * Float.BYTES;
    }

    /** Multiply-adds to encode {@code frames} frames: patch embedding, encoder layers, merger. */
    public long encoderMacs(int frames) {
        long p = patchesPerImage();
        long e = encoderWidth;
        long macs = p * patchDim() * e;
        long window = (long) windowPatches() * windowPatches();
        for (int layer = 0; layer < encoderLayers; layer++) {
            long keys = fullAttention(layer) ? p : window;
            macs += p * e * 3 * e + p * e * e + 2 * p * e * encoderMlp + 2 * p * keys * e;
        }
        long m = mergedWidth();
        macs += (long) tokensPerImage() * (m * m + m * width);
        return macs * frames;
    }

    /** Multiply-adds to prefill {@code tokens} tokens into an empty cache, attention and the LM head included. */
    public long prefillMacs(int tokens) {
        long t = tokens;
        long perToken = perTokenLinearMacs();
        long attention = (long) decoderLayers * t * (t + 1) * kvDim();
        return t * perToken + attention + lmHeadMacs();
    }

    /** Multiply-adds of one decode step when {@code context} tokens are already cached. */
    public long decodeMacs(int context) {
        long keys = context + 1L;
        return perTokenLinearMacs() + (long) decoderLayers * 2 * keys * kvDim() + lmHeadMacs();
    }

    private long perTokenLinearMacs() {
        long w = width;
        long kv = kvDim();
        return (long) decoderLayers * (w * 3 * kv + kv * w + 2 * w * decoderMlp);
    }

    private long lmHeadMacs() {
        return (long) width * Tokens.VOCAB;
    }
}
