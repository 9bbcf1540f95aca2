package org.mooncake.osgi.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Master metadata operations on 100,000 resident objects: a put (start + end + remove, so the
 * store does not grow), a replica look-up (get) and an exists, on one and on two threads; with
 * the default policy, and with cost-aware, which observes every hit and write (its overhead);
 * with the segment's grant key ({@code grants=signed}) every put-start and get also signs a
 * data-path grant per replica (HMAC-SHA256), against none ({@code grants=none}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// 10 s of warm-up: on 2 cores the C2 compiles of the put path take 3-7 s (commit 872be8e),
// during which a put cycle runs at 0.15-0.3 ops/us instead of 1.0-1.4 (2 s of warm-up measured
// that)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow"})
public class MasterOpsBenchmark {
    private static final int RESIDENT = 100_000;

    @org.openjdk.jmh.annotations.Param({"lease-lru", "cost-aware"})
    public String policy;

    @org.openjdk.jmh.annotations.Param({"none", "signed"})
    public String grants;

    private BenchStore store;
    private final AtomicLong seq = new AtomicLong();
    private ObjectKey[] keys;

    @Setup
    public void setUp() {
        store = new BenchStore(policy, BenchStore.capacityFor(RESIDENT, 0.5),
                "signed".equals(grants) ? org.mooncake.osgi.store.master.GrantKey.random() : null);
        store.fill(RESIDENT);
        keys = new ObjectKey[RESIDENT];
        for (int i = 0; i < RESIDENT; i++) {
            keys[i] = ObjectKey.of("obj-" + i);
        }
    }

    private ObjectKey anyResident() {
        return keys[ThreadLocalRandom.current().nextInt(RESIDENT)];
    }

    private void putCycle() {
        ObjectKey k = ObjectKey.of("new-" + seq.incrementAndGet());
        long put1 = store.master.putStart("bench-client", k, BenchStore.KV_SIZE, BenchStore.KV, false).putId();
        store.master.putEnd("bench-client", k, put1, 1);
        store.master.remove(k, true);
    }

    @Benchmark
    @Threads(1)
    public void putStartEndRemove1() {
        putCycle();
    }

    @Benchmark
    @Threads(2)
    public void putStartEndRemove2() {
        putCycle();
    }

    @Benchmark
    @Threads(1)
    public Object getReplicaList1() {
        return store.master.getReplicaList(anyResident());
    }

    @Benchmark
    @Threads(2)
    public Object getReplicaList2() {
        return store.master.getReplicaList(anyResident());
    }

    @Benchmark
    @Threads(1)
    public boolean exists1() {
        return store.master.exists(anyResident());
    }

    @Benchmark
    @Threads(2)
    public boolean exists2() {
        return store.master.exists(anyResident());
    }
}
