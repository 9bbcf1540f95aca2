package org.mooncake.osgi.epd.model.internal;

import java.nio.charset.StandardCharsets;

/**
 * Deterministic weights: each tensor has its own SplitMix64 stream seeded from the model seed and
 * the tensor's name, so adding a tensor never shifts the values of another. Values are uniform with
 * the requested standard deviation; every float is computed exactly (no library randomness).
 */
public final class Weights {
    private static final float UNIFORM_TO_STD = (float) StrictMath.sqrt(3.0);
    private final long seed;

    public Weights(long seed) {
        this.seed = seed;
    }

    /** {@code rows x cols}, each row its own array (the layout the kernels vectorize over). */
    public float[][] matrix(String name, int rows, int cols, float std) {
        SplitMix64 random = stream(name);
        float scale = std * UNIFORM_TO_STD;
        float[][] m = new float[rows][cols];
        for (float[] row : m) {
            for (int j = 0; j < cols; j++) {
                row[j] = random.nextSigned() * scale;
            }
        }
        return m;
    }

    public float[] vector(String name, int n, float std) {
        return matrix(name, 1, n, std)[0];
    }

    /** {@code base} plus uniform noise of the given standard deviation, e.g. norm gains near 1. */
    public float[] around(String name, int n, float base, float std) {
        float[] v = vector(name, n, std);
        for (int i = 0; i < n; i++) {
            v[i] += base;
        }
        return v;
    }

    private SplitMix64 stream(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        SplitMix64 mixer = new SplitMix64(seed ^ h);
        return new SplitMix64(mixer.next());
    }

    /** Steele, Lea and Flood's SplitMix64. */
    static final class SplitMix64 {
        private long state;

        SplitMix64(long seed) {
            state = seed;
        }

        long next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** Uniform in [-1, 1), a multiple of 2^-23, so exact as a float. */
        float nextSigned() {
            return ((next() >>> 40) - (1 << 23)) * 0x1p-23f;
        }
    }
}
