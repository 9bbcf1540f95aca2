package org.mooncake.osgi.benchmarks;

import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
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
 * A put (start + end + forced remove) on an empty master with 1, 16 or 64 mounted segments:
 * what placing a replica costs as a cluster grows (the default strategy, random order).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow"})
public class PlacementBenchmark {
    @Param({"1", "16", "64"})
    public int segments;

    private BenchStore store;
    private final ObjectKey[] keys = new ObjectKey[1024];
    private int next;

    @Setup
    public void setUp() {
        store = new BenchStore("lease-lru", 64L << 20);
        for (int i = 1; i < segments; i++) {
            store.master.mountSegment(new SegmentDescriptor("more-" + i, "bench-client", 64L << 20,
                    java.util.List.of(new SegmentEndpoint("local", "none", "more-" + i))));
        }
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ObjectKey.of("k" + i);
        }
    }

    @Benchmark
    public void putStartEndRemove() {
        ObjectKey k = keys[next++ & (keys.length - 1)];
        long put = store.master.putStart("bench-client", k, BenchStore.KV_SIZE, BenchStore.KV, false).putId();
        store.master.putEnd("bench-client", k, put, 1);
        store.master.remove(k, true);
    }
}
