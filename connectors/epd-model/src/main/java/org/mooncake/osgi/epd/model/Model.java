package org.mooncake.osgi.epd.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.mooncake.osgi.epd.model.internal.Decoder;
import org.mooncake.osgi.epd.model.internal.Hashing;
import org.mooncake.osgi.epd.model.internal.KvStore;
import org.mooncake.osgi.epd.model.internal.Sequence;
import org.mooncake.osgi.epd.model.internal.VisionEncoder;
import org.mooncake.osgi.epd.model.internal.Weights;

/**
 * The multimodal model: a vision encoder producing hidden states and a byte-level decoder with a
 * KV cache. Weights are generated deterministically from the seed (a "weights revision"); every
 * result is bit-exact across runs, threads and processes. Thread-safe: each call works on its own
 * arrays, and a {@link KvCache} belongs to one request.
 */
public final class Model {
    /** Bump when the decoder's arithmetic changes: it is part of the KV fingerprint. */
    public static final int DECODER_CODE_VERSION = 1;
    /** Prefill rows computed together; bounds scratch memory, does not change any result. */
    private static final int PREFILL_CHUNK = 256;

    private final ModelConfig cfg;
    private final long seed;
    private final VisionEncoder encoder;
    private final Decoder decoder;
    private final String encoderFingerprint;
    private final String kvFingerprint;

    private Model(ModelConfig cfg, long seed) {
        this.cfg = cfg;
        this.seed = seed;
        Weights weights = new Weights(seed);
        this.encoder = new VisionEncoder(cfg, weights);
        this.decoder = new Decoder(cfg, weights);
        this.encoderFingerprint = Hashing.shortHash("epd-model encoder v" + VisionEncoder.CODE_VERSION
                + " imageSize=" + cfg.imageSize() + " patchSize=" + cfg.patchSize() + " mergeSize=" + cfg.mergeSize()
                + " encoderWidth=" + cfg.encoderWidth() + " encoderLayers=" + cfg.encoderLayers()
                + " encoderHeads=" + cfg.encoderHeads() + " encoderMlp=" + cfg.encoderMlp() + " width=" + cfg.width()
                + " maxFrames=" + cfg.maxFrames() + " seed=" + seed + " dtype=f32");
        this.kvFingerprint = Hashing.shortHash("epd-model decoder v" + DECODER_CODE_VERSION + " encoder="
                + encoderFingerprint + " decoderLayers=" + cfg.decoderLayers() + " decoderHeads="
                + cfg.decoderHeads() + " headDim=" + cfg.headDim() + " decoderMlp=" + cfg.decoderMlp()
                + " maxContext=" + cfg.maxContext() + " seed=" + seed + " dtype=f32");
    }

    /** A model with deterministic weights from {@code seed}. */
    public static Model create(ModelConfig cfg, long seed) {
        return new Model(cfg, seed);
    }

    public ModelConfig config() {
        return cfg;
    }

    public long seed() {
        return seed;
    }

    /**
     * 16 hex digits over everything an encoder output depends on besides its input: the encoder
     * sizes, the seed, the encoder and preprocessing code version, the dtype. Put it in hidden-state
     * keys so incompatible encoders never share entries.
     */
    public String encoderFingerprint() {
        return encoderFingerprint;
    }

    /** 16 hex digits over everything KV depends on besides the tokens: the encoder fingerprint, decoder sizes, seed. */
    public String kvFingerprint() {
        return kvFingerprint;
    }

    /** Encodes media into {@code frames * tokensPerImage} rows of {@code width}. */
    public HiddenState encode(Media media) {
        if (media.imageSize() != cfg.imageSize()) {
            throw new IllegalArgumentException("media of " + media.imageSize() + "px frames, model " + cfg.name()
                    + " takes " + cfg.imageSize() + "px");
        }
        if (media.frames() > cfg.maxFrames()) {
            throw new IllegalArgumentException(media.frames() + " frames exceed maxFrames " + cfg.maxFrames());
        }
        float[] data = encoder.encode(media.pixels());
        return new HiddenState(media.frames() * cfg.tokensPerImage(), cfg.width(), data);
    }

    /** Rows a media item of {@code frames} frames takes in a prompt. */
    public int mediaTokens(int frames) {
        return frames * cfg.tokensPerImage();
    }

    /** The token ids of a prompt: BOS, text bytes, each media item as MEDIA_START, MEDIA_PAD x tokens, MEDIA_END. */
    public int[] tokenIds(List<PromptPart> prompt) {
        return Sequence.of(prompt).ids();
    }

    public KvCache newCache() {
        return new KvCache(new KvStore(cfg.decoderLayers(), cfg.kvDim()));
    }

    /** Runs the whole prompt, filling {@code cache} (which must be empty); returns the greedy next token. */
    public int prefill(List<PromptPart> prompt, KvCache cache) {
        if (cache.length() != 0) {
            throw new IllegalArgumentException("prefill needs an empty cache, this one holds " + cache.length()
                    + " tokens (use prefillFrom to continue a cached prefix)");
        }
        return prefillFrom(prompt, cache);
    }

    /**
     * Runs the prompt's tokens from {@code cache.length()} on, where the cache already holds the KV
     * of the prompt's first tokens (e.g. a prefix loaded from the store); returns the greedy next
     * token. Media items entirely inside the cached prefix may come without a hidden state. The
     * result is bit-identical to a full {@link #prefill}.
     */
    public int prefillFrom(List<PromptPart> prompt, KvCache cache) {
        Sequence sequence = Sequence.of(prompt);
        int start = cache.length();
        int total = sequence.length();
        checkContext(total);
        if (start >= total) {
            throw new IllegalArgumentException("the cache holds " + start + " tokens, the prompt has " + total
                    + ": nothing left to prefill");
        }
        checkCache(cache);
        sequence.requireStates(start, total, cfg.width());
        float[] logits = null;
        for (int pos = start; pos < total; pos += PREFILL_CHUNK) {
            int n = Math.min(PREFILL_CHUNK, total - pos);
            float[][] x = new float[n][cfg.width()];
            for (int r = 0; r < n; r++) {
                sequence.input(pos + r, decoder, x[r]);
            }
            logits = decoder.forward(x, n, cache.store());
        }
        return Decoder.greedy(logits);
    }

    /** Feeds one generated token (appends its KV) and returns the greedy next token. */
    public int decodeStep(KvCache cache, int token) {
        if (token < 0 || token >= Tokens.VOCAB || token == Tokens.MEDIA_PAD) {
            throw new IllegalArgumentException("cannot feed token id " + token);
        }
        checkCache(cache);
        checkContext(cache.length() + 1);
        float[][] x = new float[1][cfg.width()];
        decoder.embed(token, x[0]);
        return Decoder.greedy(decoder.forward(x, 1, cache.store()));
    }

    public boolean isEnd(int token) {
        return token == Tokens.END;
    }

    /** The printable ASCII of generated ids, up to the first END; other ids are skipped. */
    public String detokenize(int[] tokens) {
        byte[] text = new byte[tokens.length];
        int n = 0;
        for (int id : tokens) {
            if (id == Tokens.END) {
                break;
            }
            if (id >= Tokens.FIRST_PRINTABLE && id <= Tokens.LAST_PRINTABLE) {
                text[n++] = (byte) id;
            }
        }
        return new String(text, 0, n, StandardCharsets.US_ASCII);
    }

    /**
     * Prefill, then decode until {@code maxTokens} ids, the END id (included) or maxContext;
     * returns the generated ids, the first from prefill.
     */
    public int[] generate(List<PromptPart> prompt, int maxTokens) {
        if (maxTokens <= 0) {
            return new int[0];
        }
        KvCache cache = newCache();
        int[] out = new int[maxTokens];
        int n = 0;
        out[n++] = prefill(prompt, cache);
        while (n < maxTokens && !isEnd(out[n - 1]) && cache.length() < cfg.maxContext()) {
            out[n] = decodeStep(cache, out[n - 1]);
            n++;
        }
        return Arrays.copyOf(out, n);
    }

    private void checkContext(int tokens) {
        if (tokens > cfg.maxContext()) {
            throw new IllegalArgumentException("context of " + tokens + " tokens exceeds maxContext "
                    + cfg.maxContext() + " of model " + cfg.name());
        }
    }

    private void checkCache(KvCache cache) {
        if (cache.layers() != cfg.decoderLayers() || cache.kvDim() != cfg.kvDim()) {
            throw new IllegalArgumentException("cache of " + cache.layers() + " layers x " + cache.kvDim()
                    + " does not fit model " + cfg.name() + " (" + cfg.decoderLayers() + " x " + cfg.kvDim() + ")");
        }
    }
}
