package org.mooncake.osgi.store.spi.eviction;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The sort in a round's ranking ({@link Candidates#rankedByScore}) over the 131,072 candidates a
 * cost-aware round scans, scored with 40 distinct worth steps: the counting sort it uses beside
 * the key sort it used before (and still uses past {@link ScoreRanks#MAX_DISTINCT} distinct
 * scores). {@code order}: {@code mixed} scores in lease order as a mixed workload gives them;
 * {@code aligned} scores that rise with age, as the uniform store of {@code EvictionRoundBenchmark}
 * gives them (the key sort's best case: long sorted runs). Lives in the SPI's package to reach
 * the package-private sorts.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow"})
public class RankingSortBenchmark {
    private static final int CANDIDATES = 131_072;
    private static final int DISTINCT = 40;

    @Param({"mixed", "aligned"})
    public String order;

    private final int[] scores = new int[CANDIDATES];
    private final int[] scannedAt = new int[CANDIDATES];
    /**
     * Left empty, so this measures the sort alone. In a round the sort also places real views,
     * and each store into this interface-typed array checks the view's class, a header read that
     * misses cache there: 4–7 ms of the round's sort (docs/benchmarks.md,
     * 'One eviction round').
     */
    private final CandidateView[] scanned = new CandidateView[CANDIDATES];
    private final CandidateView[] ordered = new CandidateView[CANDIDATES];

    @Setup
    public void setUp() {
        Random rnd = new Random(42);
        for (int i = 0; i < CANDIDATES; i++) {
            int step = order.equals("mixed") ? rnd.nextInt(DISTINCT) : i * DISTINCT / CANDIDATES;
            int bits = Float.floatToIntBits(-step + 0.0f); // as rankedByScore maps a score
            scores[i] = bits ^ ((bits >> 31) & 0x7fffffff);
            scannedAt[i] = i;
        }
    }

    @Benchmark
    public int[] countingSort() {
        return ScoreRanks.sortStable(scores, scannedAt, scanned, ordered);
    }

    @Benchmark
    public int[] keySort() {
        return ScoreRanks.sortKeys(scores, scannedAt, scanned, ordered);
    }
}
