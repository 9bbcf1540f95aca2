package org.mooncake.osgi.epd.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Prints timings and MAC counts of the demo model (not a unit test; timings are never asserted):
 * {@code java -cp target/classes:target/test-classes org.mooncake.osgi.epd.model.DemoTimings [demo|tiny] [repeats]}.
 */
public final class DemoTimings {
    private DemoTimings() {
    }

    public static void main(String[] args) {
        ModelConfig cfg = ModelConfig.named(args.length > 0 ? args[0] : "demo");
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long t0 = System.nanoTime();
        Model model = Model.create(cfg, 1);
        System.out.printf("create %s: %.0f ms%n", cfg.name(), ms(System.nanoTime() - t0));

        Media image = Media.ofFrames(List.of(TestImages.pattern(cfg, 1)), cfg);
        List<float[]> frames = new ArrayList<>();
        for (int f = 0; f < cfg.maxFrames(); f++) {
            frames.add(TestImages.pattern(cfg, 10 + f));
        }
        Media video = Media.ofFrames(frames, cfg);
        HiddenState[] imageState = new HiddenState[1];
        HiddenState[] videoState = new HiddenState[1];
        time("encode 1 image", cfg.encoderMacs(1), repeats, () -> {
            imageState[0] = model.encode(image);
            return 0;
        });
        time("encode " + cfg.maxFrames() + "-frame video", cfg.encoderMacs(cfg.maxFrames()), repeats, () -> {
            videoState[0] = model.encode(video);
            return 0;
        });
        List<PromptPart> imagePrompt = prompt(imageState[0]);
        List<PromptPart> videoPrompt = prompt(videoState[0]);
        int imageTokens = model.tokenIds(imagePrompt).length;
        int videoTokens = model.tokenIds(videoPrompt).length;
        time("prefill image prompt (" + imageTokens + " tokens)", cfg.prefillMacs(imageTokens), repeats,
                () -> model.prefill(imagePrompt, model.newCache()));
        time("prefill video prompt (" + videoTokens + " tokens)", cfg.prefillMacs(videoTokens), repeats,
                () -> model.prefill(videoPrompt, model.newCache()));
        for (List<PromptPart> prompt : List.of(imagePrompt, videoPrompt)) {
            KvCache cache = model.newCache();
            int token = model.prefill(prompt, cache);
            int context = cache.length();
            int steps = 32;
            long start = System.nanoTime();
            for (int i = 0; i < steps; i++) {
                token = model.decodeStep(cache, token == Tokens.END ? 'a' : token);
            }
            System.out.printf("decode step at context %d: %.2f ms (%.1f MMAC)%n", context,
                    ms(System.nanoTime() - start) / steps, cfg.decodeMacs(context) / 1e6);
        }
        System.out.printf("hidden state: %d bytes per image, %d per %d-frame video; KV %d bytes per token%n",
                cfg.hiddenStateBytes(1), cfg.hiddenStateBytes(cfg.maxFrames()), cfg.maxFrames(), cfg.kvBytesPerToken());
    }

    private static List<PromptPart> prompt(HiddenState state) {
        return Prompts.chat(List.of(PromptPart.MediaItem.of("item", state), new PromptPart.Text("Describe this.")));
    }

    private static void time(String what, long macs, int repeats, IntSupplier work) {
        StringBuilder runs = new StringBuilder();
        double best = Double.MAX_VALUE;
        for (int i = 0; i < repeats; i++) {
            long start = System.nanoTime();
            work.getAsInt();
            double took = ms(System.nanoTime() - start);
            best = Math.min(best, took);
            runs.append(i == 0 ? "" : ", ").append(String.format("%.0f", took));
        }
        System.out.printf("%s: runs [%s] ms, best %.0f ms, %.1f GMAC (%.1f GMAC/s)%n", what, runs, best, macs / 1e9,
                macs / 1e6 / best);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
