package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * {@code seed600}: multimodal chat sessions after the facts recorded about the public generator of
 * Mooncake PR #2689 (see shared/reference/eviction.md). Not its code: where the facts are silent
 * (prompt lengths, image tokens, prefix families) the choices are ours and are listed below.
 *
 * <ul>
 * <li>Sessions arrive as a Poisson process (mean gap 50 ms); kinds and weights as recorded;
 *     multi-round sessions have 2-4 rounds (p 0.78) else 5-10; round gaps lognormal, median
 *     500 ms, sigma 0.7.</li>
 * <li>Images: 80% private, else one of {@code max(1, int(sessions x 0.238 x 0.25))} public
 *     slots; hidden states 2.2/4.2/9.9/13.5 MiB x scale costing 80/175/410/640 ms; video:
 *     9.9 MiB x frames, 430 ms x frames.</li>
 * <li>KV: blocks of 16 tokens, 57,344 B per token x scale (rounded up to 512 B), 1.28 ms per
 *     block. Ours: the first prompt is a family system prompt (one of 16 families, 4-40 blocks,
 *     Zipf-like popularity) plus 8-40 private text blocks and 36 blocks per image (576 tokens)
 *     or 16 per video frame; each later round adds 4-30 blocks (the reply and the next
 *     question). Each request also writes half as many one-shot "pressure" objects as it adds
 *     blocks.</li>
 * <li>Access: a request reads its hidden states (round 0 in "session" mode, plus once more
 *     mid-conversation in 10% of multi-round image sessions; every round in "full_history"),
 *     then its whole KV prefix in order.</li>
 * </ul>
 */
public final class SessionWorkload {
    public enum Mode {
        SESSION, FULL_HISTORY;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private record Kind(String name, double weight, int minImages, int maxImages, int frames, boolean multi,
            int minRounds, int maxRounds) {
    }

    private static final List<Kind> KINDS = List.of(
            new Kind("text", 0.15, 0, 0, 0, true, 0, 0),
            new Kind("image-1", 0.45, 1, 1, 0, false, 1, 1),
            new Kind("image-1-multi", 0.20, 1, 1, 0, true, 0, 0),
            new Kind("images-2-4", 0.08, 2, 4, 0, true, 0, 0),
            new Kind("batch", 0.02, 5, 8, 0, true, 10, 16),
            new Kind("video-4", 0.04, 0, 0, 4, false, 1, 1),
            new Kind("video-8", 0.01, 0, 0, 8, false, 1, 1),
            new Kind("video-4-multi", 0.04, 0, 0, 4, true, 0, 0),
            new Kind("video-8-multi", 0.01, 0, 0, 8, true, 0, 0));
    static final double[] IMAGE_MIB = {2.2, 4.2, 9.9, 13.5};
    static final double[] IMAGE_COST_MS = {80, 175, 410, 640};
    static final int TOKENS_PER_BLOCK = 16;
    static final double KV_COST_MS = 0.08 * TOKENS_PER_BLOCK;
    private static final int FAMILIES = 16;
    private static final double MIB = 1024.0 * 1024;

    private SessionWorkload() {
    }

    public static long kvBlockBytes(double scale) {
        return roundUp(TOKENS_PER_BLOCK * 57_344 * scale, 512);
    }

    /** {@code bytes} rounded up to a whole number of {@code unit}s, at least one. */
    static long roundUp(double bytes, long unit) {
        return Math.max(unit, (long) Math.ceil(bytes / unit) * unit);
    }

    public static Workload generate(int sessions, double scale, Mode mode, long seed) {
        return generate(sessions, scale, mode, seed, f -> 0);
    }

    /**
     * As {@link #generate(int, double, Mode, long)}, with {@code extraImages(f)} the probability that
     * a session starting at fraction {@code f} of the run brings ten more images that add hidden
     * bytes but no KV blocks: a type mix that drifts.
     */
    public static Workload generate(int sessions, double scale, Mode mode, long seed,
            java.util.function.DoubleUnaryOperator extraImages) {
        Random rnd = new Random(seed);
        long kvBytes = kvBlockBytes(scale);
        int publicSlots = Math.max(1, (int) (sessions * Math.max(0.02, 1 - 0.762) * 0.25));
        int[] familyBlocks = new int[FAMILIES];
        for (int f = 0; f < FAMILIES; f++) {
            familyBlocks[f] = 4 + rnd.nextInt(37);
        }
        List<Request> requests = new ArrayList<>();
        long start = 0;
        int pressure = 0;
        for (int s = 0; s < sessions; s++) {
            start += (long) (-Math.log(1 - rnd.nextDouble()) * 50);
            Kind kind = pick(rnd);
            String group = "s" + s;
            List<Access> hidden = new ArrayList<>();
            int mediaBlocks = 0;
            int images = kind.minImages() + (kind.maxImages() > kind.minImages() ? rnd.nextInt(kind.maxImages() - kind.minImages() + 1) : 0);
            int extra = rnd.nextDouble() < extraImages.applyAsDouble((double) s / sessions) ? 10 : 0;
            for (int i = 0; i < images + extra; i++) {
                boolean shared = rnd.nextDouble() < 0.2;
                int slot = rnd.nextInt(publicSlots);
                int cls = shared ? Math.floorMod(slot * 7 + 3, 4) : rnd.nextInt(4);
                String key = shared ? "img-pub-" + slot : "img-" + s + "-" + i;
                double cost = IMAGE_COST_MS[cls];
                // a private upload is read by its session only, and its connector says so
                hidden.add(new Access(key, ObjectDataType.HIDDEN_STATE, roundUp(IMAGE_MIB[cls] * MIB * scale, 64), cost, cost,
                        group, -1, false, !shared));
                // Extra (drift) images add hidden bytes only, as if their tokens were pooled away.
                mediaBlocks += i < images ? 36 : 0;
            }
            if (kind.frames() > 0) {
                double cost = (IMAGE_COST_MS[2] + 20) * kind.frames();
                hidden.add(new Access("vid-" + s, ObjectDataType.HIDDEN_STATE,
                        roundUp(IMAGE_MIB[2] * MIB * scale * kind.frames(), 64), cost, cost, group, -1, false, true));
                mediaBlocks += 16 * kind.frames();
            }
            int rounds = kind.multi() ? (kind.minRounds() > 0 ? kind.minRounds() + rnd.nextInt(kind.maxRounds() - kind.minRounds() + 1)
                    : rnd.nextDouble() < 0.78 ? 2 + rnd.nextInt(3) : 5 + rnd.nextInt(6)) : 1;
            int family = zipf(rnd, FAMILIES);
            int rereadRound = !hidden.isEmpty() && rounds > 1 && rnd.nextDouble() < 0.10 ? 1 + rnd.nextInt(rounds - 1) : -1;
            List<String> prefix = new ArrayList<>();
            for (int b = 0; b < familyBlocks[family]; b++) {
                prefix.add("kv-f" + family + "-" + b);
            }
            int privateBlocks = 8 + rnd.nextInt(33) + mediaBlocks;
            long t = start;
            for (int r = 0; r < rounds; r++) {
                if (r > 0) {
                    t += (long) Math.exp(Math.log(500) + 0.7 * rnd.nextGaussian());
                    privateBlocks = 4 + rnd.nextInt(27);
                }
                int before = prefix.size();
                for (int b = 0; b < privateBlocks; b++) {
                    prefix.add("kv-s" + s + "-" + (before + b));
                }
                List<Access> accesses = new ArrayList<>();
                boolean readHidden = mode == Mode.FULL_HISTORY || r == 0 || r == rereadRound;
                if (readHidden) {
                    accesses.addAll(hidden);
                }
                for (int b = 0; b < prefix.size(); b++) {
                    accesses.add(new Access(prefix.get(b), ObjectDataType.KVCACHE, kvBytes, KV_COST_MS, KV_COST_MS, group, b,
                            false));
                }
                for (int p = 0; p < privateBlocks / 2; p++) {
                    accesses.add(new Access("press-" + pressure++, ObjectDataType.KVCACHE, kvBytes, KV_COST_MS, KV_COST_MS,
                            "pressure", -1, false));
                }
                requests.add(new Request(t, accesses));
            }
        }
        return Workload.of(String.format(Locale.ROOT, "seed%d-%s", sessions, mode.label()), requests);
    }

    private static Kind pick(Random rnd) {
        double x = rnd.nextDouble();
        for (Kind k : KINDS) {
            x -= k.weight();
            if (x < 0) {
                return k;
            }
        }
        return KINDS.getLast();
    }

    /** Family f with probability proportional to 1/(f+1). */
    private static int zipf(Random rnd, int n) {
        double total = 0;
        for (int i = 1; i <= n; i++) {
            total += 1.0 / i;
        }
        double x = rnd.nextDouble() * total;
        for (int i = 1; i <= n; i++) {
            x -= 1.0 / i;
            if (x < 0) {
                return i - 1;
            }
        }
        return n - 1;
    }
}
