package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

class TransferGoalsTest {
    private static Result r(String system, String op, long size, double mibPerSecond) {
        return new Result(system, op, size, 1, mibPerSecond, 0, 0);
    }

    private static String line(List<String> lines, String start) {
        return lines.stream().filter(l -> l.startsWith(start)).findFirst().orElseThrow(() -> new AssertionError(start));
    }

    @Test
    void eachGoalIsJudgedOnItsOwnLineAndPeersNotMeasuredAreSaid() {
        List<Result> results = new ArrayList<>();
        long kib64 = 64 << 10;
        long large = 32_062_464;
        results.add(r("memcpy", "copy", kib64, 40_000));
        results.add(r("shm", "put", kib64, 20_500)); // 1.95x: within 2x
        results.add(r("shm", "get", kib64, 19_000)); // 2.11x: over
        results.add(r("tcp", "put", kib64, 1_000));
        results.add(r("redis", "put", kib64, 900)); // 1.11x: at least Redis below 32 MB
        results.add(r("memcpy", "copy", large, 10_000));
        results.add(r("tcp", "put", large, 1_400));
        results.add(r("redis", "put", large, 1_000)); // 1.4x: short of 1.5x for a large object
        results.add(r("iperf3-1", "stream", 0, 2_000));
        results.add(r("tcp", "get", large, 1_500)); // 75% of the stream
        List<String> lines = TransferGoals.check(results);

        assertTrue(line(lines, "shm within 2x of memcpy, 65,536 B put").endsWith("1.95x met"), lines.toString());
        assertTrue(line(lines, "shm within 2x of memcpy, 65,536 B get").endsWith("2.11x MISSED"), lines.toString());
        assertTrue(line(lines, "tcp at least 1.0x Redis, 65,536 B put").endsWith("1.11x met"), lines.toString());
        assertTrue(line(lines, "tcp at least 1.5x Redis, 32,062,464 B put").endsWith("1.40x MISSED"), lines.toString());
        assertTrue(line(lines, "tcp at least 80% of one iperf3 stream, 32,062,464 B get").endsWith("75.00% MISSED"),
                lines.toString());
        assertTrue(line(lines, "tcp against Redis, 32,062,464 B get").endsWith("not measured"), lines.toString());
        assertTrue(lines.stream().noneMatch(l -> l.contains("iperf3") && l.contains("65,536")),
                "the loopback limit applies from 1 MiB on");
    }
}
