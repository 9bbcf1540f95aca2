package org.mooncake.osgi.epd.model.internal;

import java.util.Arrays;

/**
 * Multi-head softmax attention of one query over keys {@code [0, keys)}. Keys are stored
 * transposed ({@code kt[c][j]} = channel c of key j, c = head*headDim + d) so scores accumulate as
 * vectorizable axpys over keys; values are rows ({@code v[j][c]}). Every score sums over d in
 * order and every output over j in order, so the result for a query depends only on the keys it
 * sees, never on how many other queries were computed with it.
 */
public final class Attention {
    private Attention() {
    }

    /**
     * @param q      the query, channels at {@code qOff ..}
     * @param scale  applied to the query (1/sqrt(headDim))
     * @param scores scratch of at least {@code keys} floats
     * @param out    receives {@code heads*headDim} channels
     */
    public static void attend(float[] q, int qOff, float scale, float[][] kt, float[][] v, int keys, int heads,
            int headDim, float[] scores, float[] out) {
        for (int h = 0; h < heads; h++) {
            int base = h * headDim;
            Arrays.fill(scores, 0, keys, 0f);
            for (int d = 0; d < headDim; d++) {
                Linear.axpy(q[qOff + base + d] * scale, kt[base + d], scores, keys);
            }
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < keys; j++) {
                max = Math.max(max, scores[j]);
            }
            float sum = 0f;
            for (int j = 0; j < keys; j++) {
                float e = (float) StrictMath.exp(scores[j] - max);
                scores[j] = e;
                sum += e;
            }
            int end = base + headDim;
            Arrays.fill(out, base, end, 0f);
            for (int j = 0; j < keys; j++) {
                float p = scores[j];
                float[] vj = v[j];
                for (int c = base; c < end; c++) {
                    out[c] += p * vj[c];
                }
            }
            float inv = 1f / sum;
            for (int c = base; c < end; c++) {
                out[c] *= inv;
            }
        }
    }

    /**
     * Every query of a block attends to all {@code n} keys of the block (no mask), as encoder
     * windows do. Same arithmetic per output element as {@link #attend}, but the value products run
     * as long axpys over queries: {@code probsT[j][i]} holds query i's weight of key j.
     *
     * @param q      query rows, channels from 0
     * @param probsT scratch of at least {@code n x n}
     * @param outT   scratch of at least {@code headDim x n}
     * @param inv    scratch of at least {@code n}
     * @param out    receives {@code heads*headDim} channels per query row
     */
    public static void attendBlock(float[][] q, int[] rows, float scale, float[][] kt, float[][] v, int heads,
            int headDim, float[] scores, float[][] probsT, float[][] outT, float[] inv, float[][] out) {
        int n = rows.length;
        for (int h = 0; h < heads; h++) {
            int base = h * headDim;
            for (int i = 0; i < n; i++) {
                float[] qi = q[rows[i]];
                Arrays.fill(scores, 0, n, 0f);
                for (int d = 0; d < headDim; d++) {
                    Linear.axpy(qi[base + d] * scale, kt[base + d], scores, n);
                }
                float max = Float.NEGATIVE_INFINITY;
                for (int j = 0; j < n; j++) {
                    max = Math.max(max, scores[j]);
                }
                float sum = 0f;
                for (int j = 0; j < n; j++) {
                    float e = (float) StrictMath.exp(scores[j] - max);
                    probsT[j][i] = e;
                    sum += e;
                }
                inv[i] = 1f / sum;
            }
            for (int d = 0; d < headDim; d++) {
                Arrays.fill(outT[d], 0, n, 0f);
            }
            for (int j = 0; j < n; j++) {
                float[] vj = v[j];
                float[] pj = probsT[j];
                for (int d = 0; d < headDim; d++) {
                    Linear.axpy(vj[base + d], pj, outT[d], n);
                }
            }
            for (int i = 0; i < n; i++) {
                float[] o = out[rows[i]];
                for (int d = 0; d < headDim; d++) {
                    o[base + d] = outT[d][i] * inv[i];
                }
            }
        }
    }
}
