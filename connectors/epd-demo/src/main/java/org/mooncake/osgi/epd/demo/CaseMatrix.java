package org.mooncake.osgi.epd.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The demo's correctness matrix and its load mix. Every image is drawn from its own seed, so each
 * case's media are new to the store unless the case is about a repeat; every prompt's text
 * differs, so no request reuses another's KV (see {@link Prompt}).
 */
public final class CaseMatrix {
    /** Frames of the video item. */
    public static final int VIDEO_FRAMES = 8;
    static final int MAX_TOKENS = 24;
    static final int STREAM_MAX_TOKENS = 48;

    private CaseMatrix() {
    }

    public static List<DemoCase> cases(ModelSize size) {
        int side = size.imageSide();
        long h = size.hiddenBytes(1);
        long video = size.hiddenBytes(VIDEO_FRAMES);
        Prompt.Media first = image(1, side);
        Prompt.Media shared = image(7, side);
        List<DemoCase> cases = new ArrayList<>();
        cases.add(DemoCase.of("text only", step("", prompt(DemoModels.R1, "Tell me about the sea.", List.of()),
                false, Evidence.disaggregated(0, 0, 0, 0))));
        cases.add(DemoCase.of("one image", step("", prompt(DemoModels.R1, "What is in this picture?", List.of(first)),
                false, Evidence.disaggregated(1, 0, h, h))));
        cases.add(DemoCase.of("three images", step("", prompt(DemoModels.R1, "Compare these three pictures.",
                List.of(image(2, side), image(3, side), image(4, side))), false,
                Evidence.disaggregated(3, 0, 3 * h, 3 * h))));
        cases.add(DemoCase.of("repeated image", step("", prompt(DemoModels.R1,
                "Look again at the first picture: which colours do you see?", List.of(first)), false,
                Evidence.disaggregated(0, 1, 0, h))));
        cases.add(DemoCase.of("streaming", step("", new Prompt(DemoModels.R1, "Describe this picture, slowly.",
                List.of(image(5, side)), STREAM_MAX_TOKENS), true, Evidence.disaggregated(1, 0, h, h))));
        cases.add(DemoCase.of("video (" + VIDEO_FRAMES + " frames)", step("", prompt(DemoModels.R1,
                "What happens in this video?", List.of(video(6, side))), false,
                Evidence.disaggregated(1, 0, video, video))));
        cases.add(new DemoCase("two revisions", List.of(
                step("r1", prompt(DemoModels.R1, "Which picture is this?", List.of(shared)), false,
                        Evidence.disaggregated(1, 0, h, h)),
                // r2 must not find r1's hidden state: it encodes the same image again under its own key
                step("r2", prompt(DemoModels.R2, "Which picture is this?", List.of(shared)), false,
                        Evidence.disaggregated(1, 0, h, h))), true));
        return cases;
    }

    /**
     * One round of the load phase: the matrix's kinds of request with media of their own
     * (seeds per round), so that every request of both paths really encodes and prefills.
     */
    public static List<Prompt> loadRound(ModelSize size, int round) {
        int side = size.imageSide();
        int seed = 1000 + 100 * round;
        Prompt.Media shared = image(seed + 9, side);
        String tag = "Round " + (round + 1) + ": ";
        return List.of(
                prompt(DemoModels.R1, tag + "tell me about the sea.", List.of()),
                prompt(DemoModels.R1, tag + "what is in this picture?", List.of(image(seed + 1, side))),
                prompt(DemoModels.R1, tag + "compare these pictures.",
                        List.of(image(seed + 2, side), image(seed + 3, side), image(seed + 4, side))),
                prompt(DemoModels.R1, tag + "what happens in this video?", List.of(video(seed + 5, side))),
                prompt(DemoModels.R1, tag + "which picture is this?", List.of(shared)),
                prompt(DemoModels.R2, tag + "which picture is this?", List.of(shared)));
    }

    /** The transfer table's window: one new image per request, a short answer. */
    public static List<Prompt> transferWindow(ModelSize size, int requests) {
        List<Prompt> out = new java.util.ArrayList<>();
        for (int i = 0; i < requests; i++) {
            out.add(new Prompt(DemoModels.R1, "Window " + (i + 1) + ": what is this?",
                    List.of(image(9000 + i, size.imageSide())), 4));
        }
        return out;
    }

    static Prompt prompt(String model, String text, List<Prompt.Media> media) {
        return new Prompt(model, text, media, MAX_TOKENS);
    }

    static DemoCase.Step step(String label, Prompt prompt, boolean stream, List<Expectation> evidence) {
        return new DemoCase.Step(label, prompt, stream, evidence);
    }

    static Prompt.Media image(int seed, int side) {
        return Prompt.Media.image(DemoMedia.pngDataUrl(seed, side));
    }

    static Prompt.Media video(int seed, int side) {
        return Prompt.Media.video(DemoMedia.gifDataUrl(seed, side, VIDEO_FRAMES), VIDEO_FRAMES);
    }
}
