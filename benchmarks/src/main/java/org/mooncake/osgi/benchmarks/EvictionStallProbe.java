package org.mooncake.osgi.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * How long a get or put running beside an eviction round at N objects is held up: one load
 * thread alternates a get of a recent object and a put, timing each, while the round runs on
 * another (on a 2-core machine a second load thread would measure the scheduler, not us). Prints
 * the round time, the GC time inside it, and the load's p50 / p99.9 / max latency, per policy,
 * and beside each round a baseline: the same load while the other thread only spins for as
 * long as the round took, so what the round itself adds to the tail is the difference.
 *
 * <p>{@code java -cp benchmarks.jar org.mooncake.osgi.benchmarks.EvictionStallProbe [objects] [rounds]}
 */
public final class EvictionStallProbe {
    private EvictionStallProbe() {
    }

    public static void main(String[] args) throws Exception {
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        System.out.printf(Locale.ROOT, "%-11s %9s %6s %10s %8s %10s %10s %10s%n", "policy", "objects", "round",
                "round ms", "gc ms", "op p50 us", "op p999 us", "op max us");
        for (String policy : new String[] {"lease-lru", "type-aware"}) {
            for (int r = 0; r < rounds; r++) {
                long roundNanos = probe(policy, objects, r, 0);
                probe("(spin)", objects, r, roundNanos);
            }
        }
    }

    /** With {@code spinNanos} 0 runs a round; else spins that long instead. Returns the time taken. */
    private static long probe(String policy, int objects, int round, long spinNanos) throws InterruptedException {
        BenchStore store = new BenchStore(spinNanos > 0 ? "lease-lru" : policy, BenchStore.capacityFor(objects, 0.91));
        store.fill(objects);
        System.gc();
        AtomicBoolean running = new AtomicBoolean(true);
        long[] latency = new long[4_000_000];
        AtomicLong ops = new AtomicLong();
        Thread load = Thread.ofPlatform().start(() -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            int from = objects - objects / 10; // the newest tenth: never victims of this round
            for (long seq = 0; running.get(); seq++) {
                long t0 = System.nanoTime();
                if ((seq & 1) == 0) {
                    store.master.getReplicaList(ObjectKey.of("obj-" + (from + rnd.nextInt(objects / 10))));
                } else {
                    ObjectKey k = ObjectKey.of("probe-" + seq);
                    long put1 = store.master.putStart("bench-client", k, BenchStore.KV_SIZE, BenchStore.KV, false).putId();
                    store.master.putEnd("bench-client", k, put1, 0);
                }
                int i = (int) ops.getAndIncrement();
                if (i < latency.length) {
                    latency[i] = System.nanoTime() - t0;
                }
            }
        });
        while (ops.get() < 10_000) {
            Thread.onSpinWait();
        }
        long gc0 = gcMillis();
        long t0 = System.nanoTime();
        if (spinNanos > 0) {
            while (System.nanoTime() - t0 < spinNanos) {
                Thread.onSpinWait();
            }
        } else {
            store.master.runEvictionRound();
        }
        long roundNanos = System.nanoTime() - t0;
        long gc = gcMillis() - gc0;
        running.set(false);
        load.join();
        int n = (int) Math.min(ops.get(), latency.length);
        long[] lat = Arrays.copyOf(latency, n);
        Arrays.sort(lat);
        System.out.printf(Locale.ROOT, "%-11s %9d %6d %10.1f %8d %10.1f %10.1f %10.1f%n", policy, objects, round,
                roundNanos / 1e6, gc, lat[n / 2] / 1e3, lat[(int) (n * 0.999)] / 1e3, lat[n - 1] / 1e3);
        return roundNanos;
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }
}
