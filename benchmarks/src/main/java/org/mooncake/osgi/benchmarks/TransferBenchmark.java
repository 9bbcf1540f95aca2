package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * {@code mooncake bench transfer}: put and get throughput and latency per object size over each
 * transport, side by side with a plain memory copy, the loopback TCP limit (iperf3), a Redis
 * server on loopback (redis-benchmark) and UCX's own put bandwidth (ucx_perftest), same payload
 * sizes, one client, in rounds (each size on every system in turn; the goals judge the median of
 * the rounds' ratios). What is measured is a registry of named systems ({@link TransferSystems});
 * {@code --systems} picks some, {@code --sizes} the object sizes.
 *
 * <p>The rounds are also how two configurations are compared: {@code --systems
 * tcp,tcp-unchecked --rounds 10} measures, at each size, tcp with grants checked and without one
 * right after the other, ten times over, in alternating order (A B, B A, ...); the goal lines give
 * the median of the rounds' ratios (what grants cost, judged from 1 MiB; what TLS costs,
 * {@code tcp-tls} against {@code tcp}, measured).
 *
 * <p>Writes a table to stdout, progress to stderr ({@link Progress}: a bar with the time left on a
 * terminal, lines otherwise), JSON and PNG charts to the output folder. A
 * system that cannot run here (a program not installed) is reported "not run" with the reason;
 * one that fails (a peer that never answers, within its time limit) is reported "failed" and the
 * program ends with status 1 after writing the results of the others.
 */
public final class TransferBenchmark {
    /** The default sizes: a 64 KiB and a 1 MiB object, a hidden state (32 MB) and a layer's KV blocks (206 MB). */
    static final long[] SIZES = {64 << 10, 1 << 20, 32_062_464, 206_438_400};
    static final long MAX_SIZE = 1L << 30;
    static final int MAX_ROUNDS = 20;
    static final double MAX_SCALE = 100;
    static final double DEFAULT_WARMUP_S = 2;

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

    /** One row of one round: a system's figures for one operation and size (size 0: not per size, iperf3's streams). */
    public record Result(String system, String op, long size, int ops, double mibPerSecond, double p50Ms, double p99Ms) {
    }

    /**
     * What a run found: each round's results, the medians, the goals' lines, the systems that did
     * not run here and why, and the failures (system and size: what went wrong).
     */
    record Report(List<List<Result>> rounds, List<Result> medians, List<String> goals, Map<String, String> notRun,
            List<String> failures) {
    }

    /** Each round's results, in the order measured; the last is the round under way. */
    private final List<List<Result>> rounds = new ArrayList<>();
    private final Path out;
    private final List<TransferSystem> systems;
    private final long[] sizes;
    private final TransferSystem.Rig rig;
    private final Map<String, Object> machine = Machine.describe();
    /** Set while {@link #run} runs: one step per measurement of a system at a size. */
    private Progress progress;

    private TransferBenchmark(Path out, List<TransferSystem> systems, long[] sizes, TransferSystem.Rig rig) {
        this.out = out;
        this.systems = systems;
        this.sizes = sizes;
        this.rig = rig;
    }

    /** See {@link #usage}; ends with status 2 on a bad command line, 1 when a system failed. */
    public static void main(String[] args) throws Exception {
        TransferBenchmark benchmark = BenchArgs.orExit("bench transfer", () -> parse(args));
        if (!benchmark.run(System.out).failures().isEmpty()) {
            System.exit(1);
        }
    }

    static final String OPTIONS = "--systems, --sizes, --rounds, --scale, --warmup, --out, --help";

    /** The usage, with the systems {@code known} and whether each can run here. */
    static String usage(List<TransferSystem> known) {
        return """
                usage: mooncake bench transfer [OUT_DIR] [--systems a,b,...] [--sizes 4KiB,64KiB,1MiB,16MiB] [--rounds N] [--scale X]
                                               [--warmup S]
                  OUT_DIR         where transfer.json and the charts go (docs/benchmarks); also --out DIR
                  --systems LIST  the systems to measure, comma-separated (all of them; one that cannot run
                                  here is reported "not run" with the reason)
                  --sizes LIST    object sizes: whole bytes, or with B, KiB, MiB, GiB (1024s) or kB, MB, GB (1000s);
                                  1 B to 1 GiB (default %s)
                  --rounds N      rounds the operations are split into, each goal judged within a round (3; 1 to 20)
                  --scale X       the share of each size's operations to run (1; above 0, at most 100)
                  --warmup S      unrecorded operations before each measurement last at least S seconds (2;
                                  -Dtransfer.warmup.s=S sets the default)
                  OUT_DIR SCALE ROUNDS as three plain arguments, the old form, still work.
                  -Dtransfer.tcp.spin.us=N: the tcp transport's spin.wait.us (see docs/benchmarks.md)
                systems, in the order each round measures them:
                %s""".formatted(String.join(",", Arrays.stream(SIZES).mapToObj(TransferBenchmark::shortLabel).toList()),
                TransferSystems.describe(known));
    }

    /** The benchmark {@code args} ask for; a {@link BenchArgs.Mistake} names what is wrong with them. */
    static TransferBenchmark parse(String[] args) {
        return parse(args, TransferSystems.known());
    }

    /** As {@link #parse(String[])}, choosing among {@code known} systems. */
    static TransferBenchmark parse(String[] args, List<TransferSystem> known) {
        BenchArgs.helpIfAsked(args, usage(known));
        Map<String, String> options = new LinkedHashMap<>();
        List<String> plain = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-")) {
                plain.add(a);
                continue;
            }
            if (!List.of("--systems", "--sizes", "--rounds", "--scale", "--warmup", "--out").contains(a)) {
                throw new BenchArgs.Mistake("unknown option " + a + "; it takes [OUT_DIR] and " + OPTIONS);
            }
            if (options.put(a, BenchArgs.valueOf(args, i)) != null) {
                throw new BenchArgs.Mistake(a + " given twice");
            }
            i++;
        }
        if (plain.size() > 3) {
            throw new BenchArgs.Mistake("takes at most three plain arguments, [OUT_DIR] [SCALE] [ROUNDS], was given "
                    + plain.size() + ": " + String.join(" ", plain) + " (the options are " + OPTIONS + ")");
        }
        String outDir = either(plain, 0, "OUT_DIR", options, "--out", "docs/benchmarks");
        String scale = either(plain, 1, "SCALE", options, "--scale", null);
        String roundCount = either(plain, 2, "ROUNDS", options, "--rounds", null);
        String oldSystems = System.getProperty("transfer.systems", "");
        List<TransferSystem> systems = options.containsKey("--systems")
                ? TransferSystems.select("--systems", options.get("--systems"), known)
                : oldSystems.isBlank() ? known : TransferSystems.select("-Dtransfer.systems", oldSystems, known);
        long[] sizes = options.containsKey("--sizes") ? BenchArgs.byteSizes("--sizes", options.get("--sizes"), 1, MAX_SIZE)
                : SIZES;
        double warmUp = options.containsKey("--warmup") ? BenchArgs.nonNegative("--warmup", options.get("--warmup"), 600)
                : System.getProperty("transfer.warmup.s") != null
                        ? BenchArgs.nonNegative("-Dtransfer.warmup.s", System.getProperty("transfer.warmup.s"), 600)
                        : DEFAULT_WARMUP_S;
        TransferSystem.Rig rig = new TransferSystem.Rig(
                scale == null ? 1.0 : BenchArgs.number(options.containsKey("--scale") ? "--scale" : "SCALE", scale, 0, MAX_SCALE),
                roundCount == null ? 3 : BenchArgs.wholeNumber(options.containsKey("--rounds") ? "--rounds" : "ROUNDS",
                        roundCount, 1, MAX_ROUNDS),
                warmUp);
        return new TransferBenchmark(BenchArgs.outputDirectory(options.containsKey("--out") ? "--out" : "OUT_DIR", outDir),
                systems, sizes, rig);
    }

    /** The value given as the {@code index}th plain argument or as {@code option}, not both. */
    private static String either(List<String> plain, int index, String name, Map<String, String> options, String option,
            String otherwise) {
        if (plain.size() > index && options.containsKey(option)) {
            throw new BenchArgs.Mistake(name + " given twice: as plain argument " + (index + 1) + " (" + plain.get(index)
                    + ") and as " + option + " " + options.get(option));
        }
        return plain.size() > index ? plain.get(index) : options.getOrDefault(option, otherwise);
    }

    int roundCount() {
        return rig.rounds();
    }

    double scale() {
        return rig.scale();
    }

    double warmUpSeconds() {
        return rig.warmUpSeconds();
    }

    long[] sizes() {
        return sizes.clone();
    }

    List<String> systemNames() {
        return systems.stream().map(TransferSystem::name).toList();
    }

    Path out() {
        return out;
    }

    private void progress(String s) {
        progress.note(s);
    }

    /**
     * Rounds of every size in turn, each size measured on every system one after the other (in
     * reverse order in even rounds: {@link #inRoundOrder}), so that the ratios the goals judge
     * compare measurements seconds apart, not minutes: this VM's speed drifts over a run by as
     * much as the goals' margins (see {@link TransferGoals}).
     * Prints the report to {@code report}, writes transfer.json and the charts, and returns what
     * it found.
     */
    Report run(PrintStream report) throws Exception {
        Map<String, String> notRun = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Progress p = Progress.start("bench transfer", 0)) {
            progress = p;
            measureAll(notRun, failures);
        } finally {
            progress = null;
        }
        return report(report, notRun, failures); // after the bar's last line
    }

    private void measureAll(Map<String, String> notRun, List<String> failures) throws Exception {
        progress(Machine.line(machine));
        progress(String.format(Locale.ROOT, "systems %s; sizes %s; %d rounds, scale %s, warm-up %s s",
                String.join(",", systemNames()), String.join(",", Arrays.stream(sizes).mapToObj(TransferBenchmark::shortLabel)
                        .toList()), rig.rounds(), rig.scale(), rig.warmUpSeconds()));
        Map<TransferSystem, TransferSystem.Session> started = new LinkedHashMap<>();
        try {
            for (TransferSystem s : systems) {
                Optional<String> missing = s.missing().get();
                try {
                    if (missing.isPresent()) {
                        throw new TransferSystem.Unavailable(missing.get());
                    }
                    started.put(s, s.starter().start(rig));
                } catch (TransferSystem.Unavailable u) {
                    notRun.put(s.name(), u.getMessage());
                    progress(s.name() + " not run: " + u.getMessage());
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    failed(failures, s.name() + ", start", e);
                }
            }
            long perRound = started.keySet().stream().mapToLong(s -> s.perSize() ? sizes.length : 1).sum();
            progress.grow(perRound * rig.rounds());
            for (int round = 1; round <= rig.rounds(); round++) {
                progress(String.format(Locale.ROOT, "round %d of %d", round, rig.rounds()));
                rounds.add(new ArrayList<>());
                for (long size : sizes) {
                    for (var s : inRoundOrder(List.copyOf(started.entrySet()), round)) {
                        if (s.getKey().perSize()) {
                            measure(s.getKey(), s.getValue(), size, failures);
                        }
                    }
                }
                for (var s : started.entrySet()) {
                    if (!s.getKey().perSize()) {
                        measure(s.getKey(), s.getValue(), 0, failures);
                    }
                }
            }
        } finally {
            for (var s : started.entrySet()) {
                try {
                    s.getValue().close();
                } catch (Exception e) {
                    failed(failures, s.getKey().name() + ", stop", e);
                }
            }
        }
    }

    /**
     * The systems in the order round {@code round} (from 1) measures each size: the registry's in
     * odd rounds, the reverse in even ones (A B, B A, ...), so that whatever running first or
     * second does to a measurement (the previous system's garbage, a neighbour's burst on this
     * shared VM) falls on each side of a ratio alike. Two systems over 2N rounds are N pairs each way.
     */
    static <T> List<T> inRoundOrder(List<T> systems, int round) {
        return round % 2 == 1 ? systems : systems.reversed();
    }

    private void measure(TransferSystem system, TransferSystem.Session session, long size, List<String> failures)
            throws InterruptedException {
        try {
            for (Result r : session.measure(size)) {
                rounds.getLast().add(r);
                progress(line(r));
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            failed(failures, system.name() + ", " + (size == 0 ? "round " + rounds.size() : String.format(Locale.ROOT,
                    "%,d B, round %d", size, rounds.size())), e);
        }
        progress.step(1);
    }

    private void failed(List<String> failures, String what, Exception e) {
        String line = what + ": " + (e.getMessage() != null ? e.getMessage() : e.toString());
        failures.add(line);
        progress("FAILED " + line);
    }

    private static String line(Result r) {
        return String.format(Locale.ROOT, "%-18s %-6s %,12d B: %9.1f MiB/s  p50 %s ms  p99 %s ms", r.system, r.op,
                r.size, r.mibPerSecond, ms(r.p50Ms, 8), ms(r.p99Ms, 8));
    }

    /** A latency, or a dash where the row has none (0: ucx_perftest's bandwidth, iperf3's streams). */
    private static String ms(double ms, int width) {
        return ms > 0 ? String.format(Locale.ROOT, "%" + width + ".3f", ms) : " ".repeat(width - 1) + "-";
    }

    /** One row from the operations' times in ns: MiB/s over their sum, their p50 and p99. */
    static Result result(String system, String op, long size, long[] nanos) {
        Arrays.sort(nanos);
        double total = Arrays.stream(nanos).sum() / 1e9;
        return new Result(system, op, size, nanos.length, nanos.length * size / total / (1 << 20),
                nanos[nanos.length / 2] / 1e6, nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.99))] / 1e6);
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

    private Report report(PrintStream stdout, Map<String, String> notRun, List<String> failures) throws IOException {
        List<Result> medians = medians(rounds);
        int width = Math.max(10, medians.stream().mapToInt(r -> r.system.length()).max().orElse(0));
        stdout.println(Machine.line(machine));
        stdout.printf(Locale.ROOT, "medians of %d rounds, scale %s%n", rounds.size(), rig.scale());
        stdout.printf(Locale.ROOT, "%-" + width + "s %-6s %14s %12s %10s %10s   %s%n", "system", "op", "size (B)", "MiB/s",
                "p50 ms", "p99 ms", "MiB/s by round");
        for (Result r : medians) {
            String byRound = String.join(" / ", rounds.stream().map(round -> TransferGoals.mibPerSecond(round, r.system,
                    r.op, r.size)).filter(OptionalDouble::isPresent)
                    .map(m -> String.format(Locale.ROOT, "%.0f", m.getAsDouble())).toList());
            stdout.printf(Locale.ROOT, "%-" + width + "s %-6s %,14d %12.1f %10s %10s   %s%n", r.system, r.op, r.size,
                    r.mibPerSecond, ms(r.p50Ms, 10), ms(r.p99Ms, 10), byRound);
        }
        if (!notRun.isEmpty()) {
            stdout.println();
            stdout.println("not run here:");
            notRun.forEach((name, why) -> stdout.println("  " + name + ": " + why));
        }
        if (!failures.isEmpty()) {
            stdout.println();
            stdout.println("FAILED:");
            failures.forEach(f -> stdout.println("  " + f));
        }
        Map<String, List<String>> commands = new LinkedHashMap<>();
        systems.stream().filter(s -> !s.commands().isEmpty() && !notRun.containsKey(s.name()))
                .forEach(s -> commands.put(s.name(), s.commands()));
        if (!commands.isEmpty()) {
            stdout.println();
            stdout.println("command lines:");
            commands.forEach((name, lines) -> lines.forEach(l -> stdout.println("  " + name + ": " + l)));
        }
        stdout.println();
        stdout.println("goals in this run:");
        List<String> goals = TransferGoals.check(rounds);
        goals.forEach(line -> stdout.println("  " + line));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("machine", machine);
        json.put("systems", systemNames());
        json.put("sizes", sizes);
        json.put("scale", rig.scale());
        json.put("medians", medians);
        json.put("goals", goals);
        json.put("notRun", notRun);
        json.put("failures", failures);
        json.put("commands", commands);
        json.put("rounds", rounds);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("transfer.json").toFile(), json);
        charts(medians);
        System.err.println("[bench transfer] wrote " + out.resolve("transfer.json") + " and transfer-{put,get}.png");
        return new Report(List.copyOf(rounds), medians, goals, notRun, failures);
    }

    /**
     * The medians as two bar charts, put and get: a bar per system and size, the operations that
     * are neither (memcpy's copy, ucx_perftest's put bandwidth) in both, and the loopback limit
     * of each iperf3 row as a level across.
     */
    private void charts(List<Result> medians) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> xs = Arrays.stream(sizes).mapToObj(TransferBenchmark::label).toList();
        List<String> names = medians.stream().filter(r -> r.size > 0).map(Result::system).distinct().toList();
        for (String op : new String[] {"put", "get"}) {
            CategoryChart chart = new CategoryChartBuilder().width(Math.max(1000, 120 * sizes.length * names.size() / 2))
                    .height(520).title("Transfer " + op + " throughput by object size, one client, median of "
                            + rounds.size() + " rounds (higher is better)")
                    .yAxisTitle("MiB/s").build();
            chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
            for (String system : names) {
                List<Double> ys = new ArrayList<>();
                for (long size : sizes) {
                    ys.add(medians.stream().filter(r -> r.system.equals(system) && r.size == size
                            && (r.op.equals(op) || !(r.op.equals("put") || r.op.equals("get"))))
                            .mapToDouble(Result::mibPerSecond).findFirst().orElse(0));
                }
                if (ys.stream().anyMatch(y -> y > 0)) {
                    chart.addSeries(system, xs, ys);
                }
            }
            medians.stream().filter(r -> r.size == 0).forEach(r -> chart.addSeries(r.system + " (limit)",
                    xs, xs.stream().map(x -> r.mibPerSecond).toList()));
            if (!chart.getSeriesMap().isEmpty()) {
                BitmapEncoder.saveBitmap(chart, out.resolve("transfer-" + op + ".png").toString(),
                        BitmapEncoder.BitmapFormat.PNG);
            }
        }
    }

    /** A size as the charts show it. */
    static String label(long size) {
        String s = shortLabel(size);
        return size == 32_062_464 ? "32 MB (hidden)" : size == 206_438_400 ? "206 MB (KV)"
                : s.matches("[0-9]+") ? String.format(Locale.ROOT, "%,d B", size) : s.replaceFirst("([0-9]+)", "$1 ");
    }

    /** A size as {@code --sizes} takes it: 64KiB, 1MiB, 32062464. */
    static String shortLabel(long size) {
        for (var unit : List.of(Map.entry(1L << 30, "GiB"), Map.entry(1L << 20, "MiB"), Map.entry(1L << 10, "KiB"))) {
            if (size % unit.getKey() == 0 && size / unit.getKey() < 1024) {
                return size / unit.getKey() + unit.getValue();
            }
        }
        return Long.toString(size);
    }
}
