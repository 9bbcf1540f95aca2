package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * {@code mooncake bench transfer}: put and get throughput and latency per object size over each
 * transport, side by side with a plain memory copy, the loopback TCP limit (iperf3) and a Redis
 * server on loopback (redis-benchmark), same payload sizes, one client, in rounds (each size on
 * every system in turn; the goals judge the median of the rounds' ratios). A storage node and a
 * pure client, each with its own transport instance, share an in-process master, so bytes cross
 * the real transport (kernel TCP on loopback, a second mapping of the shm file).
 *
 * <p>Writes a table to stdout, progress to stderr, JSON and a PNG chart to the output folder.
 */
public final class TransferBenchmark {
    static final long[] SIZES = {64 << 10, 1 << 20, 32_062_464, 206_438_400};
    /**
     * Every buffer the benchmark copies from or into starts on a page, as an engine's registered
     * buffers do. A copy whose destination lies 48–256 bytes after its source modulo 4 KiB runs at
     * up to half speed on the EPYC VM here (4K aliasing: 26 GB/s at 48–80 bytes, against 53–57
     * GB/s), and two 64-byte-aligned allocations one after the other land 64 bytes apart; so
     * memcpy's own figure moved from run to run by 2x with where malloc put the buffers, and
     * shm's ratio to it with it.
     */
    static MemorySegment buffer(Arena arena, long size) {
        return arena.allocate(size, 4096);
    }

    record Result(String system, String op, long size, int ops, double mibPerSecond, double p50Ms, double p99Ms) {
    }

    /** Each round's results, in the order measured; the last is the round under way. */
    private final List<List<Result>> rounds = new ArrayList<>();
    private final Path out;
    private final double scale;
    private final int roundCount;
    private final Map<String, Object> machine = Machine.describe();

    private TransferBenchmark(Path out, double scale, int roundCount) {
        this.out = out;
        this.scale = scale;
        this.roundCount = roundCount;
    }

    /**
     * {@code [OUT_DIR] [SCALE] [ROUNDS]}: where the results go (docs/benchmarks), the share of
     * the operations to run (1), and the rounds they are split into (3).
     */
    public static void main(String[] args) throws Exception {
        BenchArgs.orExit("bench transfer", () -> parse(args)).run();
    }

    /** The benchmark {@code args} ask for; a {@link BenchArgs.Mistake} names what is wrong with them. */
    static final String USAGE = """
            usage: mooncake bench transfer [OUT_DIR] [SCALE] [ROUNDS]
              OUT_DIR  where transfer.json and the charts go (docs/benchmarks)
              SCALE    the share of each size's operations to run (1)
              ROUNDS   rounds the operations are split into, each goal judged within a round (3)
              system properties: -Dtransfer.systems=memcpy,shm,... runs only those;
              -Dtransfer.warmup.s=S; -Dtransfer.tcp.spin.us=N (see docs/benchmarks.md)""";

    static TransferBenchmark parse(String[] args) {
        BenchArgs.helpIfAsked(args, USAGE);
        if (args.length > 3) {
            throw new BenchArgs.Mistake("takes [OUT_DIR] [SCALE] [ROUNDS], was given " + args.length + " arguments");
        }
        for (String a : args) {
            if (a.startsWith("-")) { // --help would otherwise become an output directory and start a run
                throw new BenchArgs.Mistake("takes [OUT_DIR] [SCALE] [ROUNDS] and no options, was given " + a
                        + " (settings are system properties, such as -Dtransfer.systems=shm,tcp; see docs/benchmarks.md)");
            }
        }
        double scale = args.length > 1 ? BenchArgs.number("SCALE", args[1], 0, 100) : 1.0;
        int rounds = args.length > 2 ? BenchArgs.wholeNumber("ROUNDS", args[2], 1, 20) : 3;
        return new TransferBenchmark(BenchArgs.outputDirectory("OUT_DIR", args.length > 0 ? args[0] : "docs/benchmarks"),
                scale, rounds);
    }

    int roundCount() {
        return roundCount;
    }

    private int ops(long size) {
        // Small objects get many operations: with 2,000 at 64 KiB (1,000 to warm up) parts of
        // the path were still interpreted or C1 code, and shm read 6.9x memcpy instead of ~3.5x;
        // with 20,000 a shm run lasted 60 ms, so one young GC pause moved its mean by a tenth.
        // The run's operations are split over its rounds, so more rounds take little longer.
        int n = size <= 64 << 10 ? 100_000 : size <= 1 << 20 ? 3_000 : size < 100_000_000 ? 20 : 6;
        return Math.max(3, (int) Math.ceil(n * scale / roundCount));
    }

    /**
     * Unrecorded operations before each measurement: at least {@code minOps} and at least
     * {@code -Dtransfer.warmup.s} seconds (default 2), so that the JIT has compiled the path
     * (Redis, the peer here, is native code and needs none). A count alone was not enough: shm
     * at 64 KiB ran 8.5 µs at p50 after 15,000 operations and 2.8 µs after 100,000.
     */
    private static void warmUp(int minOps, IntConsumer op) {
        long until = System.nanoTime() + (long) (Double.parseDouble(System.getProperty("transfer.warmup.s", "2")) * 1e9);
        for (int i = 0; i < minOps || System.nanoTime() < until; i++) {
            op.accept(i);
        }
    }

    private static void progress(String s) {
        System.err.println("[bench transfer] " + s);
    }

    /** {@code -Dtransfer.systems=tcp,redis} runs only those (for a quick A/B); default all. */
    private static boolean selected(String system) {
        String only = System.getProperty("transfer.systems", "");
        return only.isBlank() || java.util.Set.of(only.split(",")).contains(system);
    }

    /**
     * Rounds of every size in turn, each size measured on every system one after the other, so
     * that the ratios the goals judge compare measurements seconds apart, not minutes: this VM's
     * speed drifts over a run by as much as the goals' margins (see {@link TransferGoals}).
     */
    private void run() throws Exception {
        Map<String, Supplier<Transport>> transports = new LinkedHashMap<>();
        transports.put("local", LocalTransport::new);
        transports.put("shm", () -> new ShmTransport(ShmTransport.in("/dev/shm")));
        transports.put("tcp", () -> {
            try {
                // -Dtransfer.tcp.spin.us=0 measures the transport without its poll before sleeping
                return new TcpTransport(TcpTransport.loopback(4, 4 << 20, 60_000,
                        Long.getLong("transfer.tcp.spin.us", TcpTransport.DEFAULT_SPIN_WAIT_US)));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        progress(Machine.line(machine));
        int redisPort = selected("redis") ? startRedis() : -1;
        try {
            for (int round = 1; round <= roundCount; round++) {
                progress(String.format(Locale.ROOT, "round %d of %d", round, roundCount));
                rounds.add(new ArrayList<>());
                for (long size : SIZES) {
                    if (selected("memcpy")) {
                        memcpy(size);
                    }
                    for (var t : transports.entrySet()) {
                        if (selected(t.getKey())) {
                            store(t.getKey(), t.getValue(), size);
                        }
                    }
                    if (redisPort > 0) {
                        redis(redisPort, size);
                    }
                }
                if (selected("iperf3")) {
                    iperf();
                }
            }
        } finally {
            if (redis != null) {
                redis.destroyForcibly();
            }
        }
        report();
    }

    private void record(String system, String op, long size, long[] nanos) {
        Arrays.sort(nanos);
        double total = Arrays.stream(nanos).sum() / 1e9;
        Result r = new Result(system, op, size, nanos.length, nanos.length * size / total / (1 << 20),
                nanos[nanos.length / 2] / 1e6, nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.99))] / 1e6);
        rounds.getLast().add(r);
        progress(String.format(Locale.ROOT, "%-8s %-4s %,12d B: %9.1f MiB/s  p50 %8.3f ms  p99 %8.3f ms", system, op,
                size, r.mibPerSecond, r.p50Ms, r.p99Ms));
    }

    private void memcpy(long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = buffer(a, size);
            MemorySegment dst = buffer(a, size);
            src.fill((byte) 1);
            dst.fill((byte) 0);
            int n = ops(size) * 2;
            warmUp(n / 2, i -> MemorySegment.copy(src, 0, dst, 0, size));
            long[] t = new long[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                MemorySegment.copy(src, 0, dst, 0, size);
                t[i] = System.nanoTime() - t0;
            }
            record("memcpy", "copy", size, t);
        }
    }

    private void store(String name, Supplier<Transport> transport, long size) throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        // Each object is removed right after its get; its read lease would hold the space for 10 s,
        // so the clock jumps past the lease before the remove (leases are not what is measured).
        AtomicLong jump = new AtomicLong();
        InstantSource clock = () -> java.time.Instant.ofEpochMilli(System.currentTimeMillis() + jump.get());
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, clock, policies);
        Transport ownerNet = transport.get();
        // in-process copies need the one registry of the JVM; the others get a peer of their own
        Transport clientNet = name.equals("local") ? ownerNet : transport.get();
        try (Arena arena = Arena.ofShared()) {
            EmbeddedStoreClient storage = EmbeddedStoreClient.create(master, List.of(ownerNet), "storage", "default",
                    ownerNet.protocol(), clock);
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(clientNet), "client", "default",
                    ownerNet.protocol(), clock);
            storage.mountNewSegment(Math.max(64L << 20, 3 * size), arena);
            MemorySegment src = buffer(arena, size);
            MemorySegment dst = buffer(arena, size);
            src.fill((byte) 7);
            client.registerBuffer(src);
            client.registerBuffer(dst);
            int n = ops(size);
            long[] put = new long[n];
            long[] get = new long[n];
            IntConsumer putGetRemove = i -> {
                String key = "obj-" + i;
                long t0 = System.nanoTime();
                client.putFrom(key, src, ReplicateConfig.DEFAULT);
                long t1 = System.nanoTime();
                client.getInto(key, dst);
                long t2 = System.nanoTime();
                if (i >= 0) {
                    put[i] = t1 - t0;
                    get[i] = t2 - t1;
                }
                jump.addAndGet(MasterSettings.DEFAULTS.defaultLeaseTtlMs() + 1);
                client.remove(key, false);
                master.heartbeat("storage");
            };
            warmUp(Math.max(2, n / 2), i -> putGetRemove.accept(-1 - i)); // negative: not recorded
            for (int i = 0; i < n; i++) {
                putGetRemove.accept(i);
            }
            record(name, "put", size, put);
            record(name, "get", size, get);
            storage.unmountAll();
        } finally {
            if (ownerNet instanceof AutoCloseable c) {
                c.close();
            }
            if (clientNet instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String run(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return output;
    }

    private void iperf() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/iperf3"))) {
            progress("iperf3 not installed (apt-get install iperf3): skipped");
            return;
        }
        for (int streams : new int[] {1, 4}) {
            int port = freePort();
            Process server = new ProcessBuilder("iperf3", "-s", "-1", "-p", String.valueOf(port)).start();
            try {
                Thread.sleep(300); // iperf3 has no readiness signal; a failed connect below is reported, not hidden
                String json = run(List.of("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port), "-t", "3", "-P",
                        String.valueOf(streams), "-J"), 30);
                var bps = new ObjectMapper().readTree(json).at("/end/sum_received/bits_per_second");
                double mib = bps.asDouble() / 8 / (1 << 20);
                rounds.getLast().add(new Result("iperf3-" + streams, "stream", 0, streams, mib, 0, 0));
                progress(String.format(Locale.ROOT, "iperf3 %d stream(s): %.1f MiB/s", streams, mib));
            } finally {
                server.destroyForcibly();
            }
        }
    }

    /** The Redis server all rounds use, once started. */
    private Process redis;

    /** Starts a Redis server on a free port and returns the port; -1 when Redis is not installed. */
    private int startRedis() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/redis-server"))) {
            progress("redis-server not installed (apt-get install redis-server redis-tools): skipped");
            return -1;
        }
        int port = freePort();
        redis = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--save", "",
                "--appendonly", "no", "--proto-max-bulk-len", "1gb", "--client-query-buffer-limit", "1gb").start();
        String ping = "";
        for (int i = 0; i < 100 && !ping.contains("PONG"); i++) {
            ping = run(List.of("redis-cli", "-p", String.valueOf(port), "ping"), 5);
        }
        if (!ping.contains("PONG")) {
            throw new IllegalStateException("redis-server on port " + port + " did not answer: " + ping.strip());
        }
        return port;
    }

    private void redis(int port, long size) throws Exception {
        int n = ops(size);
        String csv = run(List.of("redis-benchmark", "-p", String.valueOf(port), "-t", "set,get", "-n",
                String.valueOf(n), "-d", String.valueOf(size), "-c", "1", "-P", "1", "--csv"), 600);
        List<Result> measured = redisResults(csv, size, n);
        if (measured.isEmpty()) {
            throw new IllegalStateException("redis-benchmark printed no SET or GET figures: " + csv.strip());
        }
        for (Result r : measured) {
            rounds.getLast().add(r);
            progress(String.format(Locale.ROOT, "redis    %-4s %,12d B: %9.1f MiB/s  p50 %8.3f ms  p99 %8.3f ms",
                    r.op, size, r.mibPerSecond, r.p50Ms, r.p99Ms));
        }
    }

    /**
     * redis-benchmark's {@code --csv} rows as results, columns found by the header's names
     * ({@code "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
     * "p99_latency_ms","max_latency_ms"} in Redis 7). Until session 13 they were read by position,
     * one off: the figures shown as Redis's p50 and p99 were its p95 and maximum.
     */
    static List<Result> redisResults(String csv, long size, int n) {
        List<Result> out = new ArrayList<>();
        List<String> header = null;
        for (String line : csv.split("\n")) {
            List<String> f = List.of(line.replace("\"", "").trim().split(","));
            if (f.getFirst().equals("test")) {
                header = f;
            } else if (header != null && (f.getFirst().equals("SET") || f.getFirst().equals("GET"))) {
                double rps = Double.parseDouble(f.get(header.indexOf("rps")));
                double p50 = Double.parseDouble(f.get(header.indexOf("p50_latency_ms")));
                double p99 = Double.parseDouble(f.get(header.indexOf("p99_latency_ms")));
                out.add(new Result("redis", f.getFirst().equals("SET") ? "put" : "get", size, n,
                        rps * size / (1 << 20), p50, p99));
            }
        }
        return out;
    }

    /** Medians over the rounds; ops are the rounds' sum. */
    static List<Result> medians(List<List<Result>> rounds) {
        Map<List<Object>, List<Result>> bySeries = new LinkedHashMap<>();
        for (List<Result> round : rounds) {
            for (Result r : round) {
                bySeries.computeIfAbsent(List.of(r.system, r.op, r.size), k -> new ArrayList<>()).add(r);
            }
        }
        List<Result> out = new ArrayList<>();
        bySeries.forEach((k, rs) -> out.add(new Result(rs.getFirst().system, rs.getFirst().op, rs.getFirst().size,
                rs.stream().mapToInt(Result::ops).sum(), median(rs, Result::mibPerSecond), median(rs, Result::p50Ms),
                median(rs, Result::p99Ms))));
        return out;
    }

    private static double median(List<Result> rs, java.util.function.ToDoubleFunction<Result> f) {
        return TransferGoals.median(rs.stream().map(r -> f.applyAsDouble(r)).toList());
    }

    private void report() throws IOException {
        List<Result> medians = medians(rounds);
        System.out.println(Machine.line(machine));
        System.out.printf(Locale.ROOT, "medians of %d rounds%n", rounds.size());
        System.out.printf(Locale.ROOT, "%-10s %-6s %14s %12s %10s %10s   %s%n", "system", "op", "size (B)", "MiB/s", "p50 ms",
                "p99 ms", "MiB/s by round");
        for (Result r : medians) {
            String byRound = String.join(" / ", rounds.stream().map(round -> TransferGoals.mibPerSecond(round, r.system,
                    r.op, r.size)).filter(OptionalDouble::isPresent)
                    .map(m -> String.format(Locale.ROOT, "%.0f", m.getAsDouble())).toList());
            System.out.printf(Locale.ROOT, "%-10s %-6s %,14d %12.1f %10.3f %10.3f   %s%n", r.system, r.op, r.size,
                    r.mibPerSecond, r.p50Ms, r.p99Ms, byRound);
        }
        System.out.println();
        System.out.println("issue 3's goals in this run:");
        List<String> goals = TransferGoals.check(rounds);
        goals.forEach(line -> System.out.println("  " + line));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("machine", machine);
        json.put("medians", medians);
        json.put("goals", goals);
        json.put("rounds", rounds);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("transfer.json").toFile(), json);
        System.setProperty("java.awt.headless", "true");
        for (String op : new String[] {"put", "get"}) {
            CategoryChart chart = new CategoryChartBuilder().width(1000).height(520)
                    .title("Transfer " + op + " throughput by object size, one client, median of " + rounds.size()
                            + " rounds (higher is better)")
                    .yAxisTitle("MiB/s").build();
            chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
            List<String> xs = Arrays.stream(SIZES).mapToObj(TransferBenchmark::label).toList();
            for (String system : new String[] {"memcpy", "local", "shm", "tcp", "redis"}) {
                List<Double> ys = new ArrayList<>();
                for (long size : SIZES) {
                    ys.add(medians.stream().filter(r -> r.system.equals(system) && r.size == size
                            && (r.op.equals(op) || r.op.equals("copy"))).mapToDouble(Result::mibPerSecond).findFirst()
                            .orElse(0));
                }
                chart.addSeries(system, xs, ys);
            }
            medians.stream().filter(r -> r.system.startsWith("iperf3")).forEach(r -> chart.addSeries(r.system + " (limit)",
                    xs, xs.stream().map(x -> r.mibPerSecond).toList()));
            BitmapEncoder.saveBitmap(chart, out.resolve("transfer-" + op + ".png").toString(),
                    BitmapEncoder.BitmapFormat.PNG);
        }
        progress("wrote " + out.resolve("transfer.json") + " and transfer-{put,get}.png");
    }

    private static String label(long size) {
        return size == 64 << 10 ? "64 KiB" : size == 1 << 20 ? "1 MiB" : size == 32_062_464 ? "32 MB (hidden)" : "206 MB (KV)";
    }
}
