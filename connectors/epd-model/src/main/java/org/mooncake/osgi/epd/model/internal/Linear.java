package org.mooncake.osgi.epd.model.internal;

import java.util.Arrays;

/**
 * Matrix products over row arrays. Each output element is summed over k in ascending order from
 * 0.0f, whatever the tiling or the number of rows, so one row alone and the same row in a batch
 * give identical bits. The inner loop is an axpy over two arrays at the same index, which C2
 * vectorizes without reordering any sum.
 */
public final class Linear {
    private static final int ROW_TILE = 16;
    private static final int K_TILE = 64;

    private Linear() {
    }

    /** {@code out[r] = a[r] · w} for rows {@code [0, rows)}; {@code w} is {@code n x m}. */
    public static void matmul(float[][] a, int rows, float[][] w, float[][] out) {
        int n = w.length;
        int m = w[0].length;
        for (int r = 0; r < rows; r++) {
            Arrays.fill(out[r], 0, m, 0f);
        }
        for (int r0 = 0; r0 < rows; r0 += ROW_TILE) {
            int r1 = Math.min(rows, r0 + ROW_TILE);
            for (int k0 = 0; k0 < n; k0 += K_TILE) {
                int k1 = Math.min(n, k0 + K_TILE);
                for (int r = r0; r < r1; r++) {
                    float[] ar = a[r];
                    float[] o = out[r];
                    for (int k = k0; k < k1; k++) {
                        axpy(ar[k], w[k], o, m);
                    }
                }
            }
        }
    }

    /** {@code out[r] = a[r] · w + bias}. */
    public static void matmul(float[][] a, int rows, float[][] w, float[] bias, float[][] out) {
        matmul(a, rows, w, out);
        for (int r = 0; r < rows; r++) {
            add(bias, out[r], bias.length);
        }
    }

    /** {@code o[j] += s * x[j]} for {@code j < n}. */
    public static void axpy(float s, float[] x, float[] o, int n) {
        for (int j = 0; j < n; j++) {
            o[j] += s * x[j];
        }
    }

    /** {@code o[j] += x[j]} for {@code j < n}. */
    public static void add(float[] x, float[] o, int n) {
        for (int j = 0; j < n; j++) {
            o[j] += x[j];
        }
    }
}
