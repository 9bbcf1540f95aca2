package org.mooncake.osgi.epd.model.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LinearTest {

    @Test
    void aRowAloneEqualsTheSameRowInABatch() {
        // 37 rows and 150 inputs straddle the row and k tiles; every row must match bit for bit.
        Weights weights = new Weights(9);
        float[][] w = weights.matrix("w", 150, 70, 1f);
        float[][] a = weights.matrix("a", 37, 150, 1f);
        float[][] batch = new float[37][70];
        Linear.matmul(a, 37, w, batch);
        for (int r = 0; r < 37; r++) {
            float[][] single = new float[1][70];
            Linear.matmul(new float[][] {a[r]}, 1, w, single);
            assertArrayEquals(single[0], batch[r], "row " + r);
        }
    }

    @Test
    void sumsInInputOrder() {
        float[][] w = {{1e8f}, {1f}, {-1e8f}};
        float[][] out = new float[1][1];
        Linear.matmul(new float[][] {{1f, 1f, 1f}}, 1, w, out);
        // (1e8 + 1) - 1e8 in float is 0: the order is k ascending, never regrouped.
        assertEquals(0f, out[0][0]);
    }

    @Test
    void weightsAreAPureFunctionOfSeedAndName() {
        assertArrayEquals(new Weights(3).vector("x", 5, 1f), new Weights(3).vector("x", 5, 1f));
        float[] other = new Weights(3).vector("y", 5, 1f);
        float[] mine = new Weights(3).vector("x", 5, 1f);
        assertEquals(false, java.util.Arrays.equals(mine, other));
    }
}
