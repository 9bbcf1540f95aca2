package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * How long a get or put running beside an eviction round at N objects is held up: one load
 * thread alternates a get of a recent object and a put, timing each, while the round runs on
 * another (on a 2-core machine a second load thread would measure the scheduler, not us).
 *
 * <p>Two measures, because on a small shared VM an operation's latency also counts the
 * scheduler and safepoints:
 * <ul>
 * <li><b>lock waits</b>: every time the load thread parked on a lock or waited for a monitor
 * (JFR's {@code jdk.ThreadPark} and {@code jdk.JavaMonitorEnter}, recorded with no threshold).
 * The only thread it can wait for is the round, so this is exactly "blocked by the round".</li>
 * <li><b>operation latency</b> p50 / p99.9 / max, beside a baseline: the same load while the
 * other thread only spins for as long as the round took.</li>
 * </ul>
 *
 * <p>{@code java -cp benchmarks.jar org.mooncake.osgi.benchmarks.EvictionStallProbe [objects] [rounds]}
 */
public final class EvictionStallProbe {
    private static final String[] POLICIES = {"lease-lru", "type-aware", "cost-aware", "hierarchical"};

    private EvictionStallProbe() {
    }

    public static void main(String[] args) throws Exception {
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        System.out.printf(Locale.ROOT, "%-12s %9s %5s %9s %6s %10s %11s %10s %6s %12s %12s  %s%n", "policy",
                "objects", "round", "round ms", "gc ms", "op p50 us", "op p999 us", "op max us", "waits", "wait max us",
                "wait sum us", "longest wait on");
        for (String policy : POLICIES) {
            for (int r = 0; r < rounds; r++) {
                long roundNanos = probe(policy, objects, r, 0);
                probe("(spin)", objects, r, roundNanos);
            }
        }
    }

    /** With {@code spinNanos} 0 runs a round; else spins that long instead. Returns the time taken. */
    private static long probe(String policy, int objects, int round, long spinNanos)
            throws InterruptedException, IOException {
        BenchStore store = new BenchStore(spinNanos > 0 ? "lease-lru" : policy, BenchStore.capacityFor(objects, 0.91));
        store.fill(objects);
        System.gc();
        AtomicBoolean running = new AtomicBoolean(true);
        long[] latency = new long[4_000_000];
        AtomicLong ops = new AtomicLong();
        Thread load = Thread.ofPlatform().name("stall-probe-load").start(() -> {
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
        long roundNanos;
        Waits waits;
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ThreadPark").withThreshold(Duration.ZERO).withoutStackTrace();
            recording.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO).withoutStackTrace();
            recording.start();
            long t0 = System.nanoTime();
            if (spinNanos > 0) {
                while (System.nanoTime() - t0 < spinNanos) {
                    Thread.onSpinWait();
                }
            } else {
                store.master.runEvictionRound();
            }
            roundNanos = System.nanoTime() - t0;
            recording.stop();
            running.set(false);
            load.join();
            waits = waitsOf(recording, load.getName());
        }
        long gc = gcMillis() - gc0;
        int n = (int) Math.min(ops.get(), latency.length);
        long[] lat = Arrays.copyOf(latency, n);
        Arrays.sort(lat);
        System.out.printf(Locale.ROOT, "%-12s %9d %5d %9.1f %6d %10.1f %11.1f %10.1f %6d %12.1f %12.1f  %s%n", policy,
                objects, round, roundNanos / 1e6, gc, lat[n / 2] / 1e3, lat[(int) (n * 0.999)] / 1e3, lat[n - 1] / 1e3,
                waits.count, waits.maxNanos / 1e3, waits.totalNanos / 1e3, waits.longestOn);
        return roundNanos;
    }

    private record Waits(int count, long maxNanos, long totalNanos, String longestOn) {
    }

    /** The load thread's parks and monitor waits in the recording. */
    private static Waits waitsOf(Recording recording, String threadName) throws IOException {
        Path file = Files.createTempFile("stall-probe", ".jfr");
        try {
            recording.dump(file);
            int count = 0;
            long max = 0;
            long total = 0;
            String longestOn = "-";
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getThread() != null && threadName.equals(e.getThread().getJavaName())) {
                    long d = e.getDuration().toNanos();
                    count++;
                    total += d;
                    if (d > max) {
                        max = d;
                        RecordedClass on = e.hasField("parkedClass") ? e.getClass("parkedClass") : e.getClass("monitorClass");
                        longestOn = on == null ? "?" : on.getName().substring(on.getName().lastIndexOf('.') + 1);
                    }
                }
            }
            return new Waits(count, max, total, longestOn);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }
}
