package org.mooncake.osgi.epd.worker.impl;

import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.epd.model.HiddenState;
import org.mooncake.osgi.epd.model.Media;
import org.mooncake.osgi.epd.model.Model;
import org.mooncake.osgi.epd.model.ModelConfig;
import org.mooncake.osgi.epd.model.PromptPart;
import org.mooncake.osgi.epd.model.Prompts;

/**
 * One image encoded and a few tokens generated per model, with the models' own code, so the JIT
 * has compiled the hot loops before the first request (a cold first encode takes 2-3 times a warm
 * one). Touches no store and counts nothing.
 */
final class Warmup {
    private Warmup() {
    }

    static void run(Iterable<ServedModel> models) {
        for (ServedModel served : models) {
            Model model = served.model();
            ModelConfig cfg = model.config();
            List<float[]> frame = new ArrayList<>();
            float[] pixels = new float[cfg.imageSize() * cfg.imageSize() * 3];
            for (int i = 0; i < pixels.length; i++) {
                pixels[i] = (i % 255) / 255f;
            }
            frame.add(pixels);
            for (int round = 0; round < 2; round++) {
                HiddenState s = model.encode(Media.ofFrames(frame, cfg));
                model.generate(Prompts.chat(List.of(new PromptPart.Text("warm up"), PromptPart.MediaItem.of("warmup", s))),
                        4);
            }
        }
    }
}
