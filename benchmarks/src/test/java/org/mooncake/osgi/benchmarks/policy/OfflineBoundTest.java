package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The bounds against exhaustive search on small random instances. */
class OfflineBoundTest {
    private static final long U = OfflineBound.UNIT;

    /** The best integral choice of intervals that fits {@code capacity} at every step. */
    private static double bruteForce(int steps, List<OfflineBound.Interval> ivs, long capacity) {
        double best = 0;
        for (int mask = 0; mask < 1 << ivs.size(); mask++) {
            long[] load = new long[steps];
            double saved = 0;
            boolean fits = true;
            for (int k = 0; k < ivs.size() && fits; k++) {
                if ((mask >> k & 1) == 1) {
                    OfflineBound.Interval iv = ivs.get(k);
                    saved += iv.cost();
                    for (int t = iv.from(); t < iv.to(); t++) {
                        load[t] += iv.size();
                        fits &= load[t] <= capacity;
                    }
                }
            }
            if (fits) {
                best = Math.max(best, saved);
            }
        }
        return best;
    }

    private static List<OfflineBound.Interval> random(Random rnd, int steps, int n, boolean equalSizes) {
        List<OfflineBound.Interval> ivs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int from = rnd.nextInt(steps - 1);
            int to = from + 1 + rnd.nextInt(steps - 1 - from);
            long size = (equalSizes ? 1 : 1 + rnd.nextInt(4)) * U;
            ivs.add(new OfflineBound.Interval(from, to, size, 1 + rnd.nextInt(100)));
        }
        return ivs;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void withEqualSizesTheRelaxationIsTheOptimum(long seed) {
        Random rnd = new Random(seed);
        int steps = 12;
        List<OfflineBound.Interval> ivs = random(rnd, steps, 14, true);
        long capacity = (1 + rnd.nextInt(3)) * U;
        OfflineBound b = new OfflineBound(steps, ivs);
        double exact = bruteForce(steps, ivs, capacity);
        assertEquals(exact, b.fooL(capacity), 1e-6 * exact + 1e-9);
        assertTrue(b.pfooL(capacity) >= b.fooL(capacity) - 1e-6);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void withMixedSizesTheBoundsAreOrdered(long seed) {
        Random rnd = new Random(seed);
        int steps = 10;
        List<OfflineBound.Interval> ivs = random(rnd, steps, 13, false);
        long capacity = (2 + rnd.nextInt(4)) * U;
        OfflineBound b = new OfflineBound(steps, ivs);
        double integral = bruteForce(steps, ivs, capacity);
        double foo = b.fooL(capacity);
        assertTrue(foo >= integral - 1e-6, "FOO-L " + foo + " below the integral optimum " + integral);
        assertTrue(b.pfooL(capacity) >= foo - 1e-6, "PFOO-L below FOO-L");
        double all = ivs.stream().mapToDouble(OfflineBound.Interval::cost).sum();
        assertTrue(foo <= all + 1e-9);
    }

    @ParameterizedTest(name = "capacity {0} units")
    @ValueSource(longs = {0, 1, 1000})
    void theBoundGrowsWithCapacityAndStopsAtEverything(long units) {
        Random rnd = new Random(99);
        List<OfflineBound.Interval> ivs = random(rnd, 12, 12, false);
        OfflineBound b = new OfflineBound(12, ivs);
        double all = ivs.stream().mapToDouble(OfflineBound.Interval::cost).sum();
        double foo = b.fooL(units * U);
        if (units == 0) {
            assertEquals(0, foo, 1e-9);
        } else if (units >= 1000) {
            assertEquals(all, foo, 1e-6);
        } else {
            assertTrue(foo > 0 && foo < all && foo <= b.fooL(2 * units * U) + 1e-9);
        }
    }
}
