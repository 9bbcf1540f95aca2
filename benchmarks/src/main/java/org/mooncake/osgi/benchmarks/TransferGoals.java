package org.mooncake.osgi.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

/**
 * The transfer goals, checked against one run's results: shm within 2x of memcpy; tcp at least
 * Redis at every size and 1.5x Redis from 32 MB; tcp at least 80% of one iperf3 stream from
 * 1 MiB; the store over ucx at least 0.5x ucx_perftest over shared memory and 0.8x
 * ucx_perftest over TCP from 1 MiB; tcp with grants checked at least 0.90x tcp without
 * ({@code tcp-unchecked}) from 1 MiB. Each goal is an entry of {@link #GOALS}: a ratio of two
 * rows. Some entries are measured, not judged ({@link Goal#measured}): what checking grants costs
 * below 1 MiB, and what TLS costs against plain tcp. A goal one of whose rows did not run at all (a peer not installed, a system not
 * selected, the ucx rows not there yet) is one line "not run", not guessed.
 *
 * <p>A run measures every system in rounds, each round all sizes in turn. A ratio is taken
 * within one round only, between measurements minutes apart at most, since this VM's speed
 * drifts over a run by as much as the goals' margins; the verdict is on the median of the
 * rounds' ratios, and the line shows their range and in how many rounds the goal held.
 */
final class TransferGoals {
    static final long LARGE_FROM = 32_000_000;

    /** One side of a goal's ratio: a row by system, and by operation ({@code null}: the goal's, put or get). */
    record Side(String system, String op, boolean sizeless) {
        static Side same(String system) {
            return new Side(system, null, false);
        }

        OptionalDouble in(List<Result> round, String goalOp, long size) {
            return mibPerSecond(round, system, op == null ? goalOp : op, sizeless ? 0 : size);
        }
    }

    /**
     * {@code numerator / denominator} (times 100 for the unit "%"), met when at least
     * {@code line} ({@code atLeast}) or at most; judged for put and get at each size of the run
     * from {@code fromSize} and below {@code belowSize}.
     */
    record Goal(String title, Side numerator, Side denominator, double line, boolean atLeast, String unit,
            long fromSize, long belowSize) {
        boolean appliesTo(long size) {
            return size >= fromSize && size < belowSize;
        }

        /** A ratio reported with its rounds' range and no verdict ({@code line} NaN). */
        static Goal measured(String title, Side numerator, Side denominator, long fromSize, long belowSize) {
            return new Goal(title, numerator, denominator, Double.NaN, true, "x", fromSize, belowSize);
        }

        boolean judged() {
            return !Double.isNaN(line);
        }
    }

    static final List<Goal> GOALS = List.of(
            new Goal("shm within 2x of memcpy", new Side(TransferSystems.MEMCPY, "copy", false),
                    Side.same(TransferSystems.SHM), 2, false, "x", 0, Long.MAX_VALUE),
            new Goal("tcp at least 1.0x Redis", Side.same(TransferSystems.TCP), Side.same(TransferSystems.REDIS), 1, true,
                    "x", 0, LARGE_FROM),
            new Goal("tcp at least 1.5x Redis", Side.same(TransferSystems.TCP), Side.same(TransferSystems.REDIS), 1.5, true,
                    "x", LARGE_FROM, Long.MAX_VALUE),
            new Goal("tcp at least 80% of one iperf3 stream", Side.same(TransferSystems.TCP),
                    new Side(TransferSystems.IPERF3 + "-1", "stream", true), 80, true, "%", 1 << 20, Long.MAX_VALUE),
            new Goal("ucx-posix at least 0.5x ucx_perftest-posix", Side.same(TransferSystems.UCX_POSIX),
                    new Side(TransferSystems.PERFTEST_POSIX, UcxPerftest.OP, false), 0.5, true, "x", 1 << 20,
                    Long.MAX_VALUE),
            new Goal("ucx-tcp at least 0.8x ucx_perftest-tcp", Side.same(TransferSystems.UCX_TCP),
                    new Side(TransferSystems.PERFTEST_TCP, UcxPerftest.OP, false), 0.8, true, "x", 1 << 20,
                    Long.MAX_VALUE),
            new Goal("tcp with grants at least 0.90x tcp without", Side.same(TransferSystems.TCP),
                    Side.same(TransferSystems.TCP_UNCHECKED), 0.9, true, "x", 1 << 20, Long.MAX_VALUE),
            Goal.measured("tcp with grants relative to tcp without", Side.same(TransferSystems.TCP),
                    Side.same(TransferSystems.TCP_UNCHECKED), 0, 1 << 20),
            Goal.measured("tcp-tls relative to tcp", Side.same(TransferSystems.TCP_TLS), Side.same(TransferSystems.TCP),
                    0, Long.MAX_VALUE));

    private TransferGoals() {
    }

    /** One line per goal, size and operation: the median ratio and "met" or "MISSED". {@code rounds}: each round's results. */
    static List<String> check(List<List<Result>> rounds) {
        return check(rounds, GOALS);
    }

    static List<String> check(List<List<Result>> rounds, List<Goal> goals) {
        List<String> out = new ArrayList<>();
        List<Goal> judged = new ArrayList<>();
        for (Goal g : goals) {
            List<String> absent = java.util.stream.Stream.of(g.numerator.system, g.denominator.system).distinct()
                    .filter(s -> rounds.stream().flatMap(List::stream).noneMatch(r -> r.system().equals(s))).toList();
            if (absent.isEmpty()) {
                judged.add(g);
            } else {
                out.add(g.title + ": not run (no " + String.join(" and no ", absent) + " rows)");
            }
        }
        long[] sizes = rounds.stream().flatMap(List::stream).mapToLong(Result::size).filter(s -> s > 0).distinct()
                .sorted().toArray();
        for (long size : sizes) {
            for (String op : new String[] {"put", "get"}) {
                String at = String.format(Locale.ROOT, "%,d B %s", size, op);
                for (Goal g : judged) {
                    if (!g.appliesTo(size)) {
                        continue;
                    }
                    double factor = g.unit.equals("%") ? 100 : 1;
                    List<Double> values = ratios(rounds, r -> ratio(g.numerator.in(r, op, size),
                            g.denominator.in(r, op, size)).map(x -> factor * x));
                    out.add(values.isEmpty() ? g.title + ", " + at + ": not measured"
                            : g.judged() ? verdict(g.title, at, values, g.unit, g.line, g.atLeast)
                            : measuredLine(g.title, at, values, g.unit));
                }
            }
        }
        return out;
    }

    /** The ratio in each round where both sides were measured. */
    private static List<Double> ratios(List<List<Result>> rounds, Function<List<Result>, Optional<Double>> ratio) {
        return rounds.stream().map(ratio).flatMap(Optional::stream).toList();
    }

    private static Optional<Double> ratio(OptionalDouble a, OptionalDouble b) {
        return a.isPresent() && b.isPresent() ? Optional.of(a.getAsDouble() / b.getAsDouble())
                : Optional.empty();
    }

    private static String verdict(String goal, String at, List<Double> values, String unit, double line, boolean atLeast) {
        double median = median(values);
        String s = String.format(Locale.ROOT, "%s, %s: %.2f%s %s", goal, at, median, unit, met(median, line, atLeast)
                ? "met" : "MISSED");
        if (values.size() > 1) {
            long held = values.stream().filter(v -> met(v, line, atLeast)).count();
            s += String.format(Locale.ROOT, " (median of %d rounds, %.2f–%.2f%s, met in %d)", values.size(),
                    values.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                    values.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), unit, held);
        }
        return s;
    }

    /** A ratio without a verdict: its median, and the range of the rounds. */
    private static String measuredLine(String title, String at, List<Double> values, String unit) {
        String s = String.format(Locale.ROOT, "%s, %s: %.2f%s (measured)", title, at, median(values), unit);
        if (values.size() > 1) {
            s += String.format(Locale.ROOT, " (median of %d rounds, %.2f–%.2f%s)", values.size(),
                    values.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                    values.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), unit);
        }
        return s;
    }

    private static boolean met(double value, double line, boolean atLeast) {
        return atLeast ? value >= line : value <= line;
    }

    /** The middle value; the mean of the middle two for an even count. */
    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static OptionalDouble mibPerSecond(List<Result> results, String system, String op, long size) {
        return results.stream().filter(r -> r.system().equals(system) && r.op().equals(op) && r.size() == size)
                .mapToDouble(Result::mibPerSecond).findFirst();
    }
}
