package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.policy.wtinylfu.WTinyLfuPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * The W-TinyLFU policy against Caffeine itself (3.3.1, weighed by object size, maintenance on the
 * caller's thread), on the same reads at the same capacity in bytes; compared by hits over the
 * reads that could hit (requests, not bytes). Caffeine evicts at each put that passes its maximum,
 * so our side runs the smallest rounds there are: on the conversation trace through the real
 * master (watermark 1.0, a round only when a write-back finds no room, freeing one object, a 1 ms
 * lease), and on a Zipf workload of mixed sizes through a store with no allocator that frees
 * exactly the excess. What is left of the difference: Caffeine 3.3 steers the window of a cache
 * this large by hit density where we hill-climb; our sketch counts from the first write, Caffeine's
 * from half full; Caffeine admits a frequent loser at random 1 time in 128, from its own random
 * source; the master never evicts what a read leased.
 */
class WTinyLfuAgainstCaffeineTest {
    /**
     * The conversation trace: a copy kept with the tests (gzipped; the benchmark reads the shared
     * original), or {@code -Dmooncake.trace=FILE}.
     */
    static Path trace() throws IOException {
        String named = System.getProperty("mooncake.trace");
        if (named != null) {
            return Path.of(named);
        }
        Path copy = Files.createTempFile("conversation-trace", ".jsonl");
        copy.toFile().deleteOnExit();
        try (var in = new java.util.zip.GZIPInputStream(WTinyLfuAgainstCaffeineTest.class
                .getResourceAsStream("/traces/mooncake-conversation-trace.jsonl.gz"))) {
            Files.copy(in, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }
    static final double ONE_POINT = 0.01;

    @ParameterizedTest(name = "capacity {0} of unique bytes")
    @ValueSource(doubles = {0.02, 0.06})
    void onTheConversationTraceThroughTheMasterItHitsAsCaffeineDoes(double fraction) throws IOException {
        Path trace = trace();
        assertTrue(Files.isReadable(trace), "the conversation trace is not at " + trace.toAbsolutePath());
        Workload w = TraceWorkload.read(trace, 0.006, false, 1);
        long capacity = w.capacityBytes(fraction);
        RunResult ours = Simulation.run(w, new WTinyLfuPolicy(), new Simulation.Settings(capacity, 1, 1.0, 1e-9, false));
        double caffeine = CaffeineReplay.nonCompulsoryHitRatio(w, capacity);
        System.out.printf(Locale.ROOT, "trace %.0f%%: w-tinylfu %.2f%%, Caffeine %.2f%%%n", 100 * fraction,
                100 * ours.nonCompulsoryHitRatio(), 100 * caffeine);
        assertTrue(ours.rounds > 1000, "the store was hardly ever full: nothing was compared");
        assertEquals(caffeine, ours.nonCompulsoryHitRatio(), ONE_POINT);
    }

    /**
     * Mixed sizes, where the weigher matters. Here the two climbers part: Caffeine 3.3 sizes the
     * window by hit density, and on this workload ends 0.5-1.1 points below the classic climber
     * we run (which Caffeine 3.2.2 still ran: against it we measured within 0.6 points). So: never
     * more than a point below Caffeine, and no more than two above it.
     */
    @ParameterizedTest(name = "capacity {0} of unique bytes")
    @ValueSource(doubles = {0.05, 0.20})
    void onAZipfWorkloadOfMixedSizesItHitsAtLeastAsCaffeineDoes(double fraction) {
        Workload w = zipf(20_000, 400_000, 0.9, 42);
        long capacity = (long) (w.uniqueBytes() * fraction);
        double ours = AllocatorFreeStore.nonCompulsoryHitRatio(w, new WTinyLfuPolicy(), capacity);
        double caffeine = CaffeineReplay.nonCompulsoryHitRatio(w, capacity);
        System.out.printf(Locale.ROOT, "zipf %.0f%%: w-tinylfu %.2f%%, Caffeine %.2f%%%n", 100 * fraction, 100 * ours, 100 * caffeine);
        assertTrue(ours >= caffeine - ONE_POINT, "more than a point below Caffeine: " + ours + " vs " + caffeine);
        assertTrue(ours <= caffeine + 2 * ONE_POINT, "more than two points above Caffeine: " + ours + " vs " + caffeine);
    }

    /**
     * {@code reads} one-object requests over {@code keys} keys of 1-64 KiB (log-uniform, fixed
     * per key), Zipf({@code skew}) popular; halfway the popularity order is shuffled, so that
     * aging and the window's size matter.
     */
    static Workload zipf(int keys, int reads, double skew, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] cdf = new double[keys];
        double sum = 0;
        for (int i = 0; i < keys; i++) {
            sum += 1 / Math.pow(i + 1, skew);
            cdf[i] = sum;
        }
        long[] sizes = new long[keys];
        int[] rankToKey = new int[keys];
        for (int k = 0; k < keys; k++) {
            sizes[k] = (long) (1024 * Math.pow(2, rnd.nextDouble() * 6));
            rankToKey[k] = k;
        }
        List<Request> requests = new ArrayList<>(reads);
        for (int i = 0; i < reads; i++) {
            if (i == reads / 2) {
                for (int k = keys - 1; k > 0; k--) {
                    int j = rnd.nextInt(k + 1);
                    int t = rankToKey[k];
                    rankToKey[k] = rankToKey[j];
                    rankToKey[j] = t;
                }
            }
            int rank = Arrays.binarySearch(cdf, rnd.nextDouble() * sum);
            int key = rankToKey[rank < 0 ? -rank - 1 : rank];
            requests.add(new Request(i, List.of(new Access("z" + key, ObjectDataType.KVCACHE, sizes[key], 1, 1, null, -1, false))));
        }
        return Workload.of("zipf", requests);
    }
}
