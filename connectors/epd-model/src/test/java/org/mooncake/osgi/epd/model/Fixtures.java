package org.mooncake.osgi.epd.model;

import java.util.Arrays;
import java.util.List;

/** The tiny model the tests share, and the prompt and decode loops the reference workers use. */
final class Fixtures {
    static final ModelConfig TINY = ModelConfig.tiny();
    static final long SEED = 2026;
    static final Model MODEL = Model.create(TINY, SEED);
    static final int ANSWER_TOKENS = 16;

    private Fixtures() {
    }

    static HiddenState encode(Model model, int kind) {
        return model.encode(Media.ofFrames(List.of(TestImages.pattern(model.config(), kind)), model.config()));
    }

    static List<PromptPart> prompt(HiddenState state) {
        return Prompts.chat(List.of(PromptPart.MediaItem.of("image-1", state), new PromptPart.Text("Describe the image.")));
    }

    static int[] answer(Model model, HiddenState state) {
        return model.generate(prompt(state), ANSWER_TOKENS);
    }

    /** The decode worker's loop: continue from a loaded cache and the first token prefill returned. */
    static int[] continueDecoding(Model model, KvCache cache, int first, int maxTokens) {
        int[] out = new int[maxTokens];
        out[0] = first;
        int n = 1;
        while (n < maxTokens && !model.isEnd(out[n - 1])) {
            out[n] = model.decodeStep(cache, out[n - 1]);
            n++;
        }
        return Arrays.copyOf(out, n);
    }
}
