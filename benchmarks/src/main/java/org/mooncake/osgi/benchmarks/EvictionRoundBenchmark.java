package org.mooncake.osgi.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One eviction round on a store 91% full of {@code objects} objects (one in fifty a hidden
 * state): the round plans with the policy and frees 6% of capacity. Each iteration refills.
 * Eight warm-up rounds: a fresh JVM's first rounds still run partly interpreted (196, 88, 56 ms
 * for cost-aware's first three in one run, then 35–45 ms); a store that evicts runs compiled.
 * A fixed heap ({@code -Xms} = {@code -Xmx}), as a master should run: the full collection after
 * each refill shrank a growable heap by 2.5 GB, and the round then ran while the collector gave
 * the memory back and took page faults to grow again, which made one round in three or four
 * take twice as long in every phase (cost-aware on the aged store: 59 ± 51 ms against 45 ± 7).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 8)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "-Xms8g", "-Xmx8g"})
public class EvictionRoundBenchmark {
    @Param({"100000", "1000000"})
    public int objects;

    @Param({"lease-lru", "type-aware", "hierarchical", "cost-aware"})
    public String policy;

    /**
     * {@code uniform}: every object put once, a millisecond apart, never read, so scores rise
     * with age (a ranking's easiest case) and the policy starts fresh. {@code aged}: see {@link
     * BenchStore#fillAged}: sessions, reads, a learned model and a ghost list partly filled.
     */
    @Param({"uniform", "aged"})
    public String store;

    /**
     * Above 0, the round must also make room for a put of this fraction of capacity that found no
     * contiguous space (see the master's {@code RoomMaker}): the fill ends with such puts until
     * one fails, so the measured round runs its passes, then evicts one contiguous range. 0.01 is
     * one seed KV object (206 MB) in a 20 GB store; 0.125 a stress case: an
     * eighth of the store cleared as one range.
     */
    @Param({"0"})
    public double room;

    private BenchStore bench;

    @Setup(Level.Iteration)
    public void fill() {
        bench = new BenchStore(policy, BenchStore.capacityFor(objects, 0.91));
        if (store.equals("aged")) {
            bench.fillAged(objects, 0.91);
        } else {
            bench.fill(objects);
        }
        if (room > 0) {
            bench.wantRoom((long) (room * bench.master.stats().capacityBytes()));
        }
        System.gc();
    }

    @Benchmark
    public long evictionRound() {
        long before = bench.master.stats().usedBytes();
        bench.master.runEvictionRound();
        long freed = before - bench.master.stats().usedBytes();
        if (freed <= 0) {
            throw new IllegalStateException("the round freed nothing");
        }
        if (room > 0 && bench.roomsMade() != 1) {
            throw new IllegalStateException("the round made no room for the put that found none");
        }
        return freed;
    }
}
