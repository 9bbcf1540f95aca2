package org.mooncake.osgi.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

/**
 * Issue 3's goals, checked against one run's results: shm within 2x of memcpy; tcp at least
 * Redis at every size and 1.5x Redis from 32 MB; tcp at least 80% of one iperf3 stream from
 * 1 MiB. A peer that was not measured (Redis or iperf3 not installed) is said, not guessed.
 */
final class TransferGoals {
    static final long LARGE_FROM = 32_000_000;

    private TransferGoals() {
    }

    /** One line per goal, size and operation: the ratio and "met" or "MISSED". */
    static List<String> check(List<Result> results) {
        List<String> out = new ArrayList<>();
        OptionalDouble stream = mibPerSecond(results, "iperf3-1", "stream", 0);
        for (long size : TransferBenchmark.SIZES) {
            for (String op : new String[] {"put", "get"}) {
                OptionalDouble memcpy = mibPerSecond(results, "memcpy", "copy", size);
                OptionalDouble shm = mibPerSecond(results, "shm", op, size);
                OptionalDouble tcp = mibPerSecond(results, "tcp", op, size);
                OptionalDouble redis = mibPerSecond(results, "redis", op, size);
                String at = String.format(Locale.ROOT, "%,d B %s", size, op);
                out.add(shm.isPresent() && memcpy.isPresent()
                        ? verdict("shm within 2x of memcpy", at, memcpy.getAsDouble() / shm.getAsDouble(), "x", 2, false)
                        : "shm within 2x of memcpy, " + at + ": not measured");
                double least = size >= LARGE_FROM ? 1.5 : 1;
                out.add(tcp.isPresent() && redis.isPresent()
                        ? verdict(String.format(Locale.ROOT, "tcp at least %.1fx Redis", least), at,
                                tcp.getAsDouble() / redis.getAsDouble(), "x", least, true)
                        : "tcp against Redis, " + at + ": not measured");
                if (size >= 1 << 20) {
                    out.add(tcp.isPresent() && stream.isPresent()
                            ? verdict("tcp at least 80% of one iperf3 stream", at,
                                    100 * tcp.getAsDouble() / stream.getAsDouble(), "%", 80, true)
                            : "tcp against iperf3, " + at + ": not measured");
                }
            }
        }
        return out;
    }

    private static String verdict(String goal, String at, double value, String unit, double line, boolean atLeast) {
        boolean met = atLeast ? value >= line : value <= line;
        return String.format(Locale.ROOT, "%s, %s: %.2f%s %s", goal, at, value, unit, met ? "met" : "MISSED");
    }

    private static OptionalDouble mibPerSecond(List<Result> results, String system, String op, long size) {
        return results.stream().filter(r -> r.system().equals(system) && r.op().equals(op) && r.size() == size)
                .mapToDouble(Result::mibPerSecond).findFirst();
    }
}
