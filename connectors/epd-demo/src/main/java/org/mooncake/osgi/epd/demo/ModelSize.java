package org.mooncake.osgi.epd.demo;

import java.util.Locale;

/**
 * The reference model's sizes the workers are started with ({@code models=ID=SIZE:SEED}), with
 * what the demo needs to know of them to state its evidence: the image side its media are drawn
 * at, the bytes of one frame's hidden state and how many video frames the model keeps. They
 * mirror {@code epd-model}'s {@code ModelConfig} (a test holds them equal).
 */
public enum ModelSize {
    /** 256x256 images, 256 tokens of 1024 f32 per frame (1 MiB), up to 8 frames. */
    DEMO(256, 256 * 1024 * 4, 8),
    /** 64x64 images, 16 tokens of 64 f32 per frame (4 KiB), up to 4 frames: for tests. */
    TINY(64, 16 * 64 * 4, 4);

    private final int imageSide;
    private final long hiddenBytesPerFrame;
    private final int maxFrames;

    ModelSize(int imageSide, long hiddenBytesPerFrame, int maxFrames) {
        this.imageSide = imageSide;
        this.hiddenBytesPerFrame = hiddenBytesPerFrame;
        this.maxFrames = maxFrames;
    }

    /** The name the worker profiles take: {@code demo} or {@code tiny}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public int imageSide() {
        return imageSide;
    }

    public int maxFrames() {
        return maxFrames;
    }

    /** Hidden-state payload of a media item of {@code frames} frames, after the model's frame sampling. */
    public long hiddenBytes(int frames) {
        return hiddenBytesPerFrame * Math.min(frames, maxFrames);
    }

    public static ModelSize of(String id) {
        for (ModelSize m : values()) {
            if (m.id().equals(id)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--model must be demo or tiny, was " + id);
    }
}
