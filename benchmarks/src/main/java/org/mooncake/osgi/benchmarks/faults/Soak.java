package org.mooncake.osgi.benchmarks.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.mooncake.osgi.benchmarks.faults.OpLog.Entry;
import org.mooncake.osgi.benchmarks.faults.OpLog.Op;

/** Latency of the load over time: the 99th percentile of the operations that ended in each minute. */
final class Soak {
    private Soak() {
    }

    /** One minute of a run: its operations that ended (successfully or not) and their p99 latency. */
    record Minute(int minute, int operations, double p99Ms) {
    }

    static List<Minute> perMinuteP99(List<Entry> entries, long startNanos) {
        Map<Integer, List<Long>> byMinute = new TreeMap<>();
        for (Entry e : entries) {
            if (e.op() != Op.CHECK && e.endNanos() >= 0 && e.endNanos() >= startNanos) {
                int minute = (int) ((e.endNanos() - startNanos) / 60_000_000_000L);
                byMinute.computeIfAbsent(minute, k -> new ArrayList<>()).add(e.endNanos() - e.startNanos());
            }
        }
        List<Minute> out = new ArrayList<>();
        byMinute.forEach((m, lat) -> {
            lat.sort(null);
            long p99 = lat.get(Math.min(lat.size() - 1, (int) Math.ceil(lat.size() * 0.99) - 1));
            out.add(new Minute(m, lat.size(), p99 / 1e6));
        });
        return out;
    }
}
