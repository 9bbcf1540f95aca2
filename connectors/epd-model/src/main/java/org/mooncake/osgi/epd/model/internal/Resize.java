package org.mooncake.osgi.epd.model.internal;

/**
 * Bilinear resampling of an ARGB raster to a square RGB frame in [0,1] (HWC), with pixel
 * centres aligned (the half-pixel convention of PIL and OpenCV) and edges clamped. Written out
 * by hand in double so the result does not depend on AWT's scaling paths.
 */
public final class Resize {
    private Resize() {
    }

    public static float[] bilinear(int[] argb, int width, int height, int size) {
        float[] out = new float[size * size * 3];
        int[] x0 = new int[size];
        int[] x1 = new int[size];
        double[] fx = new double[size];
        axis(width, size, x0, x1, fx);
        int[] y0 = new int[size];
        int[] y1 = new int[size];
        double[] fy = new double[size];
        axis(height, size, y0, y1, fy);
        int o = 0;
        for (int y = 0; y < size; y++) {
            int top = y0[y] * width;
            int bottom = y1[y] * width;
            double wy = fy[y];
            for (int x = 0; x < size; x++) {
                double wx = fx[x];
                int a = argb[top + x0[x]];
                int b = argb[top + x1[x]];
                int c = argb[bottom + x0[x]];
                int d = argb[bottom + x1[x]];
                for (int shift = 16; shift >= 0; shift -= 8) {
                    double upper = channel(a, shift) + (channel(b, shift) - channel(a, shift)) * wx;
                    double lower = channel(c, shift) + (channel(d, shift) - channel(c, shift)) * wx;
                    out[o++] = (float) ((upper + (lower - upper) * wy) / 255.0);
                }
            }
        }
        return out;
    }

    private static int channel(int argb, int shift) {
        return (argb >>> shift) & 0xff;
    }

    private static void axis(int source, int size, int[] lo, int[] hi, double[] frac) {
        double ratio = (double) source / size;
        for (int i = 0; i < size; i++) {
            double s = Math.min(Math.max((i + 0.5) * ratio - 0.5, 0.0), source - 1);
            int base = (int) s;
            lo[i] = base;
            hi[i] = Math.min(base + 1, source - 1);
            frac[i] = s - base;
        }
    }
}
