package org.mooncake.osgi.epd.model.internal;

/**
 * Rotary position embedding (rotate-half pairing: channel d with d + headDim/2), angles from a
 * table built once with StrictMath so the rotation of a position is the same on every platform.
 */
public final class Rope {
    private static final double BASE = 10000.0;
    private final int headDim;
    private final int half;
    private final float[][] cos;
    private final float[][] sin;

    public Rope(int headDim, int positions) {
        this.headDim = headDim;
        this.half = headDim / 2;
        this.cos = new float[positions][half];
        this.sin = new float[positions][half];
        for (int i = 0; i < half; i++) {
            double inverseFrequency = 1.0 / StrictMath.pow(BASE, (2.0 * i) / headDim);
            for (int p = 0; p < positions; p++) {
                double angle = p * inverseFrequency;
                cos[p][i] = (float) StrictMath.cos(angle);
                sin[p][i] = (float) StrictMath.sin(angle);
            }
        }
    }

    /** Rotates {@code heads} heads of {@code x}, starting at {@code off}, for position {@code pos}. */
    public void rotate(float[] x, int off, int heads, int pos) {
        float[] c = cos[pos];
        float[] s = sin[pos];
        for (int h = 0; h < heads; h++) {
            int base = off + h * headDim;
            for (int i = 0; i < half; i++) {
                float a = x[base + i];
                float b = x[base + half + i];
                x[base + i] = a * c[i] - b * s[i];
                x[base + half + i] = b * c[i] + a * s[i];
            }
        }
    }
}
