package org.mooncake.osgi.epd.model.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ResizeTest {

    @Test
    void upscalingInterpolatesBetweenPixelCentres() {
        // Black then white: centres at 0.5 and 1.5 in source pixels, sampled at 0.25, 0.75, 1.25, 1.75.
        float[] out = Resize.bilinear(new int[] {0xff000000, 0xffffffff}, 2, 1, 4);
        float[] firstRow = new float[12];
        System.arraycopy(out, 0, firstRow, 0, 12);
        assertArrayEquals(new float[] {0, 0, 0, 0.25f, 0.25f, 0.25f, 0.75f, 0.75f, 0.75f, 1, 1, 1}, firstRow);
    }

    @Test
    void channelsComeOutAsRgb() {
        float[] out = Resize.bilinear(new int[] {0x80ff8000}, 1, 1, 2);
        for (int i = 0; i < out.length; i += 3) {
            assertEquals(1f, out[i]);
            assertEquals(128 / 255f, out[i + 1]);
            assertEquals(0f, out[i + 2]);
        }
    }
}
