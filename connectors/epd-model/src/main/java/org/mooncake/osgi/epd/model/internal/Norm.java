package org.mooncake.osgi.epd.model.internal;

/** Layer norm and RMS norm of one row; statistics in double, summed in index order. */
public final class Norm {
    private static final double EPS = 1e-6;

    private Norm() {
    }

    public static void layerNorm(float[] x, float[] gain, float[] bias, float[] out) {
        int n = gain.length;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += x[i];
        }
        double mean = sum / n;
        double var = 0;
        for (int i = 0; i < n; i++) {
            double d = x[i] - mean;
            var += d * d;
        }
        double inv = 1.0 / StrictMath.sqrt(var / n + EPS);
        for (int i = 0; i < n; i++) {
            out[i] = (float) ((x[i] - mean) * inv) * gain[i] + bias[i];
        }
    }

    public static void rmsNorm(float[] x, float[] gain, float[] out) {
        int n = gain.length;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            squares += (double) x[i] * x[i];
        }
        double inv = 1.0 / StrictMath.sqrt(squares / n + EPS);
        for (int i = 0; i < n; i++) {
            out[i] = (float) (x[i] * inv) * gain[i];
        }
    }
}
