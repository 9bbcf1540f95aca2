package org.mooncake.osgi.epd.model.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class GifFramesTest {

    @Test
    void keepsAllFramesThatFit() {
        assertArrayEquals(new boolean[] {true, true, true}, GifFrames.sample(3, 8));
    }

    @Test
    void samplesTheCentresOfEqualSpans() {
        boolean[] keep = GifFrames.sample(16, 4);
        assertArrayEquals(new int[] {2, 6, 10, 14}, IntStream.range(0, 16).filter(i -> keep[i]).toArray());
    }
}
