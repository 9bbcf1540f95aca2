package org.mooncake.osgi.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

/**
 * Issue 3's goals, checked against one run's results: shm within 2x of memcpy; tcp at least
 * Redis at every size and 1.5x Redis from 32 MB; tcp at least 80% of one iperf3 stream from
 * 1 MiB. A peer that was not measured (Redis or iperf3 not installed) is said, not guessed.
 *
 * <p>A run measures every system in rounds, each round all sizes in turn. A ratio is taken
 * within one round only, between measurements minutes apart at most, since this VM's speed
 * drifts over a run by as much as the goals' margins; the verdict is on the median of the
 * rounds' ratios, and the line shows their range and in how many rounds the goal held.
 */
final class TransferGoals {
    static final long LARGE_FROM = 32_000_000;

    private TransferGoals() {
    }

    /** One line per goal, size and operation: the median ratio and "met" or "MISSED". {@code rounds}: each round's results. */
    static List<String> check(List<List<Result>> rounds) {
        List<String> out = new ArrayList<>();
        for (long size : TransferBenchmark.SIZES) {
            for (String op : new String[] {"put", "get"}) {
                String at = String.format(Locale.ROOT, "%,d B %s", size, op);
                List<Double> shmToMemcpy = ratios(rounds, r -> ratio(mibPerSecond(r, "memcpy", "copy", size),
                        mibPerSecond(r, "shm", op, size)));
                out.add(shmToMemcpy.isEmpty() ? "shm within 2x of memcpy, " + at + ": not measured"
                        : verdict("shm within 2x of memcpy", at, shmToMemcpy, "x", 2, false));
                double least = size >= LARGE_FROM ? 1.5 : 1;
                List<Double> tcpToRedis = ratios(rounds, r -> ratio(mibPerSecond(r, "tcp", op, size),
                        mibPerSecond(r, "redis", op, size)));
                out.add(tcpToRedis.isEmpty() ? "tcp against Redis, " + at + ": not measured"
                        : verdict(String.format(Locale.ROOT, "tcp at least %.1fx Redis", least), at, tcpToRedis, "x",
                                least, true));
                if (size >= 1 << 20) {
                    List<Double> tcpToStream = ratios(rounds, r -> ratio(mibPerSecond(r, "tcp", op, size),
                            mibPerSecond(r, "iperf3-1", "stream", 0)).map(x -> 100 * x));
                    out.add(tcpToStream.isEmpty() ? "tcp against iperf3, " + at + ": not measured"
                            : verdict("tcp at least 80% of one iperf3 stream", at, tcpToStream, "%", 80, true));
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
