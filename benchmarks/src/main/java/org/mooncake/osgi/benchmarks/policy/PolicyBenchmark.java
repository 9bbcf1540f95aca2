package org.mooncake.osgi.benchmarks.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.mooncake.osgi.benchmarks.BenchArgs;
import org.mooncake.osgi.benchmarks.Machine;
import org.mooncake.osgi.benchmarks.Progress;
import org.mooncake.osgi.store.api.ObjectDataType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.google.ortools.Loader;

/**
 * {@code mooncake bench policies}: every policy bundle, driven through the real master on a
 * virtual clock, on seed600 (both access modes, a capacity sweep, several seeds), on a replay of
 * a Mooncake trace (KV only, and with synthesised hidden states) and on adversarial workloads;
 * each run beside the offline bounds (FOO-L, PFOO-L) for the same trace and capacity, and on
 * seed600 beside two oracles that run in the same store knowing the future. With
 * {@code --access-log FILE} it replays an operator's log of gets, puts and removes
 * ({@link AccessLog}, docs/access-log.md) the same way, oracles included. Shows progress
 * ({@link Progress}), prints a table; writes JSON, a Markdown report and charts.
 */
public final class PolicyBenchmark {
    /** The command line, with defaults that reproduce the documented run. */
    record Options(Path out, int sessions, double scale, int seeds, double[] capacities, long leaseMs, Path trace,
            int threads, java.util.Set<String> workloads, boolean oracles, boolean groupOnlyHints, Path accessLog) {
        static final String ACCESS_LOG = "access-log";
        static final List<String> FAMILIES = List.of("seed600", "trace", "adversarial", ACCESS_LOG);

        boolean runs(String family) {
            return workloads.contains(family);
        }

        /**
         * The options; {@code --quick} changes only the defaults, so an option given beside it
         * wins wherever it stands. {@code --access-log FILE} replays that log: alone, only it; with
         * {@code --workloads}, beside the families named. Every value is checked here, before any run starts.
         */
        static Options parse(String[] args) {
            BenchArgs.helpIfAsked(args, USAGE);
            boolean quick = Arrays.asList(args).contains("--quick");
            String out = "docs/benchmarks";
            int sessions = quick ? 200 : 600;
            double scale = 0.006;
            int seeds = quick ? 2 : 3;
            double[] caps = quick ? new double[] {0.04, 0.08, 0.12} : new double[] {0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.16, 0.20};
            long lease = 1_000;
            String trace = "../shared/traces/mooncake-conversation-trace.jsonl";
            int threads = Runtime.getRuntime().availableProcessors();
            java.util.Set<String> workloads = null;
            String accessLog = null;
            boolean oracles = true;
            boolean hints = true;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--quick" -> {
                        continue;
                    }
                    case "--no-group-only-hints" -> {
                        hints = false;
                        continue;
                    }
                    case "--no-oracles" -> {
                        oracles = false;
                        continue;
                    }
                    default -> {
                        // every other option takes a value
                    }
                }
                String v = BenchArgs.valueOf(args, i++);
                switch (a) {
                    case "--out" -> out = v;
                    case "--sessions" -> sessions = BenchArgs.wholeNumber(a, v, 1, 100_000);
                    case "--scale" -> scale = BenchArgs.number(a, v, 0, 1);
                    case "--seeds" -> seeds = BenchArgs.wholeNumber(a, v, 1, 100);
                    case "--capacities" -> caps = BenchArgs.numbers(a, v, 0, 1);
                    case "--lease-ms" -> lease = BenchArgs.wholeNumber(a, v, 1L, 3_600_000L); // the master's range
                    case "--trace" -> trace = v;
                    case "--access-log" -> accessLog = v;
                    case "--threads" -> threads = BenchArgs.wholeNumber(a, v, 1, 1024);
                    case "--workloads" -> {
                        workloads = new java.util.LinkedHashSet<>(Arrays.asList(v.split(",")));
                        if (!FAMILIES.containsAll(workloads)) {
                            throw new BenchArgs.Mistake("--workloads takes a list of " + FAMILIES + ", was " + v);
                        }
                    }
                    default -> throw new BenchArgs.Mistake("unknown option " + a + "\n" + USAGE);
                }
            }
            if (workloads == null) {
                workloads = new java.util.LinkedHashSet<>(accessLog != null ? List.of(ACCESS_LOG) : FAMILIES.subList(0, 3));
            }
            Path traceFile = null;
            if (workloads.contains("trace")) {
                traceFile = BenchArgs.inputFile("--trace", trace);
            }
            Path logFile = null;
            if (accessLog != null) {
                workloads.add(ACCESS_LOG);
                logFile = BenchArgs.inputFile("--access-log", accessLog);
            } else if (workloads.contains(ACCESS_LOG)) {
                throw new BenchArgs.Mistake("--workloads " + ACCESS_LOG + " needs --access-log FILE");
            }
            return new Options(BenchArgs.outputDirectory("--out", out), sessions, scale, seeds, caps, lease,
                    traceFile, threads, workloads, oracles, hints, logFile);
        }
    }

    static final String USAGE = """
            usage: mooncake bench policies [--out DIR] [--sessions N] [--scale S] [--seeds K]
                   [--capacities f1,f2,...] [--lease-ms MS] [--trace FILE.jsonl] [--threads T] [--quick]
                   [--no-oracles]   (skips the references that know the future, run on seed600 by default)
                   [--no-group-only-hints]   (connectors pass no group-only hint for private uploads)
                   [--workloads seed600,trace,adversarial,access-log]   (any JSONL trace in the Mooncake format
                                                              replays with --workloads trace --trace FILE)
                   [--access-log FILE.jsonl]   (replays an operator's log of gets, puts and removes against every
                                                policy and the offline bounds, alone unless --workloads names more;
                                                the schema: docs/access-log.md)""";

    /** One simulated run and the bounds of its workload and capacity. */
    record Cell(String workload, String group, long seed, double capacityFraction, long capacityBytes, String policy,
            RunResult result, double fooL, double pfooL, double possibleCost, double compulsoryCost) {
        double savingVsBound() {
            return fooL == 0 ? 0 : result.hitCost / fooL;
        }

        /** FOO-L as a saving rate over non-compulsory accesses. */
        double boundSavingNonCompulsory() {
            return possibleCost == 0 ? 0 : fooL / possibleCost;
        }

        double pfooSavingNonCompulsory() {
            return possibleCost == 0 ? 0 : pfooL / possibleCost;
        }
    }

    private final Options opt;
    private final ExecutorService pool;
    private final List<Future<List<Cell>>> pending = new ArrayList<>();
    private final Progress progress;

    private PolicyBenchmark(Options opt, Progress progress) {
        this.opt = opt;
        this.pool = Executors.newFixedThreadPool(opt.threads());
        this.progress = progress;
    }

    public static void main(String[] args) throws Exception {
        Options opt = BenchArgs.orExit("bench policies", () -> Options.parse(args));
        // traces are read before any run starts: a bad line ends the program at once, named
        List<Workload> traces = BenchArgs.orExit("bench policies", () -> readTraces(opt));
        Workload log = opt.accessLog() == null ? null : BenchArgs.orExit("bench policies", () -> AccessLog.read(opt.accessLog()));
        Loader.loadNativeLibraries();
        Map<String, Object> machine = Machine.describe();
        List<Cell> cells;
        List<Workload> described;
        try (Progress progress = Progress.start("bench policies", 0)) {
            long t0 = System.nanoTime();
            progress.note(Machine.line(machine));
            PolicyBenchmark benchmark = new PolicyBenchmark(opt, progress);
            described = benchmark.submitAll(traces, log);
            cells = benchmark.collect();
            progress.note(String.format(Locale.ROOT, "%d runs in %.0f s", cells.size(), (System.nanoTime() - t0) / 1e9));
        }
        report(opt, machine, cells, described); // after the bar's last line
    }

    /** The trace, KV only and with synthesised images; none unless the trace family runs. */
    static List<Workload> readTraces(Options opt) throws IOException {
        List<Workload> out = new ArrayList<>();
        if (opt.runs("trace")) {
            for (boolean hidden : new boolean[] {false, true}) {
                out.add(TraceWorkload.read(opt.trace(), opt.scale(), hidden, 1));
            }
        }
        return out;
    }

    /** Queues every run of the families asked for; returns the workloads to describe in the report. */
    private List<Workload> submitAll(List<Workload> traces, Workload log) {
        List<Workload> described = new ArrayList<>();
        for (SessionWorkload.Mode mode : opt.runs("seed600") ? SessionWorkload.Mode.values() : new SessionWorkload.Mode[0]) {
            for (int s = 1; s <= opt.seeds(); s++) {
                Workload w = SessionWorkload.generate(opt.sessions(), opt.scale(), mode, s);
                if (s == 1) {
                    described.add(w);
                }
                for (double c : opt.capacities()) {
                    submit(w, "seed" + opt.sessions() + "-" + mode.label(), s, c, opt.oracles());
                }
            }
        }
        for (Workload w : traces) {
            described.add(w);
            for (double c : new double[] {0.02, 0.06}) {
                submit(w, "trace-" + w.name(), 1, c, false);
            }
        }
        for (String name : opt.runs("adversarial") ? AdversarialWorkloads.NAMES : List.<String>of()) {
            for (int s = 1; s <= opt.seeds(); s++) {
                AdversarialWorkloads.Case c = AdversarialWorkloads.make(name, opt.sessions(), opt.scale(), s);
                if (s == 1) {
                    described.add(c.workload());
                }
                submit(c.workload(), "adversarial-" + name, s, c.capacityFraction(), false);
            }
        }
        if (log != null) {
            described.add(log);
            for (double c : opt.capacities()) {
                submit(log, log.name(), 1, c, opt.oracles());
            }
        }
        return described;
    }

    private List<Cell> collect() throws Exception {
        List<Cell> cells = new ArrayList<>();
        try {
            for (Future<List<Cell>> f : pending) {
                cells.addAll(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        return cells;
    }

    private static void report(Options opt, Map<String, Object> machine, List<Cell> cells, List<Workload> described)
            throws IOException {
        PolicyReport report = new PolicyReport(cells, opt);
        String markdown = report.markdown(described);
        System.out.println(markdown);
        Files.writeString(opt.out().resolve("policies.md"), markdown);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("machine", machine); // the rounds' times depend on it; the rest runs on a virtual clock
        Map<String, Object> options = new LinkedHashMap<>(Map.of("sessions", opt.sessions(), "scale", opt.scale(), "seeds",
                opt.seeds(), "capacities", opt.capacities(), "lease_ms", opt.leaseMs(), "high_watermark", 0.95, "eviction_ratio",
                0.05, "group_only_hints", opt.groupOnlyHints()));
        if (opt.accessLog() != null) {
            options.put("access_log", opt.accessLog().toString());
        }
        doc.put("options", options);
        doc.put("workloads", described.stream().map(w -> Map.of("name", w.name(), "summary", w.summary())).toList());
        doc.put("runs", cells.stream().map(PolicyBenchmark::toJson).toList());
        doc.put("goals", report.goals());
        json.writeValue(opt.out().resolve("policies.json").toFile(), doc);
        report.charts(opt.out());
        System.out.println("wrote " + opt.out().resolve("policies.json") + ", policies.md and policies-*.png");
    }

    /** Queues the bounds and every policy's run (and the oracles' if asked) for one workload at one capacity. */
    private void submit(Workload given, String group, long seed, double fraction, boolean oracles) {
        Workload w = opt.groupOnlyHints() ? given : given.withoutGroupOnlyHints();
        long capacity = w.capacityBytes(fraction);
        List<String> runs = new ArrayList<>(BenchPolicies.ALL);
        if (oracles) {
            runs.addAll(BenchPolicies.ORACLES);
        }
        progress.grow(runs.size());
        // Submitted before the runs that wait for it: with a FIFO queue it is always started first.
        Future<double[]> bound = pool.submit(() -> {
            OfflineBound b = new OfflineBound(w);
            return new double[] {b.fooL(capacity), b.pfooL(capacity)};
        });
        Simulation.Settings settings = new Simulation.Settings(capacity, opt.leaseMs(), 0.95, 0.05, false);
        for (String policy : runs) {
            pending.add(pool.submit(() -> {
                long t = System.nanoTime();
                RunResult r;
                if (BenchPolicies.ORACLES.contains(policy)) {
                    FutureOracle oracle = BenchPolicies.oracle(policy, w);
                    r = Simulation.run(w, oracle, settings, oracle);
                } else {
                    r = Simulation.run(w, BenchPolicies.make(policy), settings);
                }
                double[] b = bound.get();
                double possible = r.cost - r.compulsoryCost;
                Cell cell = new Cell(w.name(), group, seed, fraction, capacity, policy, r, b[0], b[1], possible,
                        r.compulsoryCost);
                progress.step(String.format(Locale.ROOT, "%-26s seed %d cap %5.1f%% %-13s saving %5.1f%% (bound %5.1f%%) %.1f s",
                        group, seed, 100 * fraction, policy, 100 * r.savingRateNonCompulsory(),
                        100 * cell.boundSavingNonCompulsory(), (System.nanoTime() - t) / 1e9));
                return List.of(cell);
            }));
        }
    }

    private static Map<String, Object> toJson(Cell c) {
        RunResult r = c.result();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", c.workload());
        m.put("group", c.group());
        m.put("seed", c.seed());
        m.put("capacity_fraction", c.capacityFraction());
        m.put("capacity_bytes", c.capacityBytes());
        m.put("policy", c.policy());
        m.put("saving_rate_non_compulsory", r.savingRateNonCompulsory());
        m.put("saving_rate_all", r.savingRate());
        m.put("foo_l_saving_non_compulsory", c.boundSavingNonCompulsory());
        m.put("pfoo_l_saving_non_compulsory", c.pfooSavingNonCompulsory());
        m.put("fraction_of_foo_l", c.savingVsBound());
        m.put("prefix_kv_hit", r.prefixKvHitRatio());
        Map<String, Object> types = new LinkedHashMap<>();
        r.types.forEach((ObjectDataType t, RunResult.PerType p) -> {
            if (p.accesses > 0) {
                types.put(t.name(), Map.of("accesses", p.accesses, "hits", p.hits, "hit_ratio", p.hitRatio(),
                        "byte_hit_ratio", p.byteHitRatio(), "hit_ratio_non_compulsory", p.nonCompulsoryHitRatio(),
                        "mean_share_of_cache", r.residentShare(t)));
            }
        });
        m.put("types", types);
        m.put("evictions", r.evictions);
        m.put("eviction_rounds", r.rounds);
        m.put("eviction_round_mean_ms", r.meanRoundMs());
        m.put("eviction_round_max_ms", r.roundNanosMax / 1e6);
        m.put("dropped_writes", r.droppedWrites);
        if (r.puts + r.removes > 0) {
            m.put("hit_ratio_non_compulsory", r.nonCompulsoryHitRatio());
            m.put("byte_hit_ratio", r.byteHitRatio());
            m.put("puts", r.puts);
            m.put("dropped_puts", r.droppedPuts);
            m.put("removes", r.removes);
        }
        if (!r.learned.isEmpty()) {
            m.put("learned", r.learned);
        }
        return m;
    }
}
