package org.mooncake.osgi.epd.model.internal;

/** GELU, tanh approximation, with StrictMath so every platform computes the same bits. */
public final class Gelu {
    private static final double C = StrictMath.sqrt(2.0 / StrictMath.PI);

    private Gelu() {
    }

    public static void apply(float[] x, int n) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            x[i] = (float) (0.5 * v * (1.0 + StrictMath.tanh(C * (v + 0.044715 * v * v * v))));
        }
    }
}
