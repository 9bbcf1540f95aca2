package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The ucx transport hot-swapped into a running all-in-one container and out again, twice, while
 * two threads keep putting and getting: the segment the client mounted before ucx came gains a
 * ucx endpoint at the master and loses it again, and nothing fails. In one container the client
 * reaches its own segment through local (cost 0), so ucx carries no data here; what is tested is
 * the bundle's life in the container: its libucp loaded into the container's JVM by one class
 * loader, dropped with the bundle, loaded by a new one at the re-install. Skipped with the reason
 * where UCX cannot start ({@link UcxExam}), failed there with {@code mooncake.ucx.required=true}.
 */
@RunWith(UcxExam.class)
@ExamReactorStrategy(PerClass.class)
public class UcxHotSwapIT {
    private static final String UCX_PID = "org.mooncake.osgi.transport.ucx";
    private static final int OBJECTS = 300;
    private static final int[] SIZES = {1, 17, 4095, 4096, 65_535, 65_536, 65_537, 100_003, 262_144, 1_048_577};
    /** Load keys a thread keeps alive at once; older ones are checked and removed, so the store never fills. */
    private static final int RING = 256;
    /** Load objects kept for the end of the test per swap step: those put while the bundle came or went. */
    private static final int KEPT_PER_STEP = 2_000;

    /** The class loaders of the bundles installed so far: whether an uninstalled one is let go is reported, not asserted. */
    private final List<WeakReference<ClassLoader>> loaders = new ArrayList<>();

    @Inject
    private StoreClient client;

    @Inject
    private MasterService master;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        return ContainerOptions.features("runtime", "master", "client");
    }

    /** The bytes of {@code key}: a size and content that follow from the key alone. */
    static byte[] value(String key, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(key.hashCode() * 0x9E3779B97F4A7C15L + size).nextBytes(b);
        return b;
    }

    private static String preKey(int i) {
        return "pre-" + i;
    }

    private static byte[] preValue(int i) {
        return value(preKey(i), SIZES[i % SIZES.length] + i / SIZES.length);
    }

    /** Load objects: 1 byte to 16 KiB, the size following from the key's index. */
    private static byte[] loadValue(String key, long i) {
        return value(key, 1 + (int) ((i * 2_654_435_761L) % 16_384));
    }

    private record Kept(String key, long i) {
    }

    /** Two threads putting, reading back and retiring objects until stopped; every read checks the bytes. */
    private final class Load {
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong ops = new AtomicLong();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        /** Objects put while a swap was under way: never retired, checked after every step and at the end. */
        final ConcurrentLinkedQueue<Kept> kept = new ConcurrentLinkedQueue<>();
        final AtomicInteger keptThisStep = new AtomicInteger();
        volatile boolean swapping;
        final List<Thread> threads = new ArrayList<>();
        final List<Kept[]> rings = new ArrayList<>();

        void start() {
            for (int w = 0; w < 2; w++) {
                int id = w;
                Kept[] ring = new Kept[RING];
                rings.add(ring);
                threads.add(Thread.ofPlatform().name("ucx-swap-load-" + w).start(() -> run(id, ring)));
            }
        }

        private void run(int id, Kept[] ring) {
            ReplicateConfig cfg = ReplicateConfig.builder()
                    .dataType(id == 0 ? ObjectDataType.KVCACHE : ObjectDataType.HIDDEN_STATE).build();
            SplittableRandom pick = new SplittableRandom(id);
            for (long i = 0; running.get(); i++) {
                String op = "";
                String key = "";
                try {
                    int slot = (int) (i % RING);
                    Kept old = ring[slot];
                    if (old != null) {
                        op = "get before retiring";
                        key = old.key();
                        check(key, loadValue(key, old.i()));
                        op = "remove";
                        client.remove(key, true);
                        ring[slot] = null;
                    }
                    key = "load-" + id + "-" + i;
                    byte[] v = loadValue(key, i);
                    boolean keep = swapping && keptThisStep.incrementAndGet() <= KEPT_PER_STEP;
                    op = "put";
                    client.put(key, v, cfg);
                    op = "get";
                    check(key, v);
                    if (keep) {
                        kept.add(new Kept(key, i));
                    } else {
                        ring[slot] = new Kept(key, i);
                    }
                    op = "get of an object put before the swap";
                    int pre = pick.nextInt(OBJECTS);
                    key = preKey(pre);
                    check(key, preValue(pre));
                    ops.addAndGet(4);
                } catch (Throwable t) {
                    failures.add(op + " " + key + ": " + t);
                    return;
                }
            }
        }

        private void check(String key, byte[] expected) {
            byte[] got = client.get(key);
            if (!Arrays.equals(expected, got)) {
                throw new AssertionError("wrong bytes for " + key + ": " + got.length + " bytes, expected " + expected.length);
            }
        }

        /** Waits until the load did {@code more} operations beyond what it had done when called; fails at once on a failure. */
        void progresses(String during, int more) throws Exception {
            long mark = ops.get();
            Await.until("the load making progress " + during, () -> {
                noFailures();
                return ops.get() >= mark + more;
            });
        }

        void noFailures() {
            assertTrue("failed operations: " + failures, failures.isEmpty());
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    private void putObjects() {
        ReplicateConfig kv = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
        for (int i = 0; i < OBJECTS; i++) {
            client.put(preKey(i), preValue(i), kv);
        }
    }

    /** Every object put before the test's swaps and every one put while a swap was under way: its exact bytes. */
    private int checkObjects(Load load) {
        for (int i = 0; i < OBJECTS; i++) {
            assertArrayEquals(preKey(i), preValue(i), client.get(preKey(i)));
        }
        int n = OBJECTS;
        for (Kept k : load.kept) {
            assertArrayEquals(k.key(), loadValue(k.key(), k.i()), client.get(k.key()));
            n++;
        }
        return n;
    }

    private SegmentStats segment() {
        List<SegmentStats> segments = master.segments();
        assertEquals("one segment, the client's: " + segments, 1, segments.size());
        return segments.getFirst();
    }

    /** The segment's ucx endpoint as the master lists it; null while it lists none. */
    private String ucxEndpoint() {
        return segment().endpoints().stream().filter(e -> e.startsWith("ucx://")).findFirst().orElse(null);
    }

    private Collection<ServiceReference<Transport>> ucxTransports() throws Exception {
        return context.getServiceReferences(Transport.class, "(" + Transport.PROTOCOL_PROPERTY + "=ucx)");
    }

    /** The ucx bundle's MetricSource services. */
    private List<MetricSource> ucxMetricSources() throws Exception {
        List<MetricSource> sources = new ArrayList<>();
        for (ServiceReference<MetricSource> ref : context.getServiceReferences(MetricSource.class, null)) {
            if (ref.getBundle() != null && UcxExam.BSN.equals(ref.getBundle().getSymbolicName())) {
                MetricSource s = context.getService(ref);
                if (s != null) {
                    sources.add(s);
                    context.ungetService(ref);
                }
            }
        }
        return sources;
    }

    /** mooncake_ucx_exposed_segments of the ucx bundle's MetricSource; -1 while there is none. */
    private double exposedSegments() throws Exception {
        for (MetricSource s : ucxMetricSources()) {
            for (Metric m : s.metrics()) {
                if (m.name().equals("mooncake_ucx_exposed_segments")) {
                    return m.samples().getFirst().value();
                }
            }
        }
        return -1;
    }

    private static long ucxWorkerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("ucx-worker-")).count();
    }

    /** Lines of /proc/self/maps naming libucp: whether the library is mapped into this JVM. */
    private static long libucpMappings() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return -1;
        }
        try (var lines = Files.lines(maps)) {
            return lines.filter(l -> l.contains("libucp.so")).count();
        }
    }

    private Bundle swapIn(Load load, int cycle, StringBuilder report) throws Exception {
        load.keptThisStep.set(0);
        load.swapping = true;
        long start = System.nanoTime();
        Bundle ucx = context.installBundle(ContainerOptions.ourJar("transport-ucx").toUri().toString());
        ucx.start();
        Await.until("the ucx Transport service registered (cycle " + cycle + ")", () -> !ucxTransports().isEmpty());
        ServiceReference<Transport> ref = ucxTransports().iterator().next();
        assertEquals("registered by the bundle just installed", ucx, ref.getBundle());
        assertEquals("configured through ConfigAdmin", "posix,self", ref.getProperty("ucx.tls"));
        Transport t = context.getService(ref);
        try {
            loaders.add(new WeakReference<>(t.getClass().getClassLoader()));
            // what UCX's context has: the configuration reached UCX, not only the service properties
            Object transports = t.getClass().getMethod("transports").invoke(t);
            assertTrue("UCX transports " + transports, transports.toString().contains("posix"));
            report.append(String.format("cycle %d: UCX context transports %s; ", cycle, transports));
        } finally {
            context.ungetService(ref);
        }
        Await.until("the mounted segment gaining a ucx endpoint at the master (cycle " + cycle + ")",
                () -> ucxEndpoint() != null);
        long inNanos = System.nanoTime() - start;
        Await.until("the ucx MetricSource counting the exposed segment (cycle " + cycle + ")",
                () -> exposedSegments() >= 1);
        load.swapping = false;
        report.append(String.format("in %.1f ms (%d objects put meanwhile), libucp mappings %d, worker threads %d; ",
                inNanos / 1e6, Math.min(load.keptThisStep.get(), KEPT_PER_STEP), libucpMappings(), ucxWorkerThreads()));
        return ucx;
    }

    private void swapOut(Load load, Bundle ucx, int cycle, StringBuilder report) throws Exception {
        load.keptThisStep.set(0);
        load.swapping = true;
        long start = System.nanoTime();
        ucx.stop();
        Await.until("the ucx endpoint gone from the master (cycle " + cycle + ")", () -> ucxEndpoint() == null);
        long outNanos = System.nanoTime() - start;
        ucx.uninstall();
        assertEquals(Bundle.UNINSTALLED, ucx.getState());
        Await.until("no ucx Transport service (cycle " + cycle + ")", () -> ucxTransports().isEmpty());
        Await.until("no ucx MetricSource (cycle " + cycle + ")", () -> ucxMetricSources().isEmpty());
        Await.until("the ucx worker thread ended (cycle " + cycle + ")", () -> ucxWorkerThreads() == 0);
        assertTrue("the bundle is gone from the framework", Arrays.stream(context.getBundles())
                .noneMatch(b -> UcxExam.BSN.equals(b.getSymbolicName())));
        load.swapping = false;
        report.append(String.format("out %.1f ms (%d objects put meanwhile), libucp mappings after uninstall %d. ",
                outNanos / 1e6, Math.min(load.keptThisStep.get(), KEPT_PER_STEP), libucpMappings()));
    }

    @Test
    public void ucxSwapsInAndOutTwiceUnderLoadWithZeroFailedOperations() throws Exception {
        long begin = System.nanoTime();
        SegmentStats before = segment();
        assertTrue("no ucx before the bundle: " + before.endpoints(), ucxEndpoint() == null);
        putObjects();
        assertEquals(OBJECTS, checkObjects(new Load()));

        // the configuration exists before the bundle: its component starts with it, never with UCX's default
        Dictionary<String, Object> ucxConfig = new Hashtable<>();
        ucxConfig.put("ucx.tls", "posix,self");
        configAdmin.getConfiguration(UCX_PID, "?").update(ucxConfig);

        StringBuilder report = new StringBuilder(String.format("libucp mappings before the first install %d; ",
                libucpMappings()));
        Load load = new Load();
        load.start();
        try {
            load.progresses("before the first swap", 1_000);
            for (int cycle = 1; cycle <= 2; cycle++) {
                Bundle ucx = swapIn(load, cycle, report);
                load.progresses("with ucx serving the segment (cycle " + cycle + ")", 1_000);
                checkObjects(load);
                swapOut(load, ucx, cycle, report);
                load.progresses("after ucx left (cycle " + cycle + ")", 1_000);
                checkObjects(load);
            }
            load.noFailures();
        } finally {
            load.stop();
        }
        load.noFailures();
        // the ring's objects too, now that nobody retires them
        int ring = 0;
        for (Kept[] r : load.rings) {
            for (Kept k : r) {
                if (k != null) {
                    assertArrayEquals(k.key(), loadValue(k.key(), k.i()), client.get(k.key()));
                    ring++;
                }
            }
        }
        int checked = checkObjects(load);

        // reported only: collection is up to the GC, and nothing here depends on it
        for (int i = 0; i < 20 && loaders.stream().anyMatch(l -> l.get() != null); i++) {
            System.gc();
        }
        report.append(String.format("class loaders of the uninstalled bundles collected: %d of %d; ",
                loaders.stream().filter(l -> l.get() == null).count(), loaders.size()));

        SegmentStats after = segment();
        assertEquals("the same client kept its segment throughout", before.clientId(), after.clientId());
        assertEquals("the same segment throughout", before.name(), after.name());
        assertTrue("no ucx endpoint left: " + after.endpoints(), ucxEndpoint() == null);
        for (Bundle b : context.getBundles()) {
            if (b.getHeaders().get("Fragment-Host") == null) {
                assertEquals(b.getSymbolicName() + " still active", Bundle.ACTIVE, b.getState());
            }
        }
        TransferStats local = client.transferStats().stream().filter(s -> s.protocol().equals("local")).findFirst()
                .orElseThrow();
        assertEquals(local.toString(), 0, local.failedWrites() + local.failedReads() + local.checksumMismatches());
        System.out.printf("ucx hot swap: %s%d load ops, %d objects checked at the end (%d kept from the swaps, %d in the"
                + " rings), segment endpoints now %s, %.1f s%n", report, load.ops.get(), checked + ring,
                load.kept.size(), ring, after.endpoints(), (System.nanoTime() - begin) / 1e9);
    }
}
