package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * The section of the policy report for a replayed access log: what the log holds, then every
 * policy (and oracle) at every capacity beside the offline bounds, and the policy that saved the
 * most at each: what an operator reads to choose one.
 */
final class AccessLogReport {
    private final PolicyReport report;
    private final Workload log;

    AccessLogReport(PolicyReport report, Workload log) {
        this.report = report;
        this.log = log;
    }

    void append(StringBuilder b) {
        String group = log.name();
        Map<String, Object> s = log.summary();
        @SuppressWarnings("unchecked")
        Map<ObjectDataType, Map<String, Long>> types = (Map<ObjectDataType, Map<String, Long>>) s.get("by_type");
        List<String> byType = new ArrayList<>();
        types.forEach((t, m) -> byType.add(String.format(Locale.ROOT, "%s %d keys, %d reads", t, m.get("objects"), m.get("reads"))));
        b.append(String.format(Locale.ROOT, "%n### Access log %s%n%n%d reads, %s puts, %s removes at %d instants over %.1f s; "
                + "%,d unique bytes; %s. Saving counts each miss at its cost_ms (1 where the log gives none); a read of a key "
                + "never written or removed since is compulsory (no cache could hit it) and left out of \"nc\".%n%n",
                group, log.accessCount(), s.getOrDefault("puts", 0L), s.getOrDefault("removes", 0L), s.get("requests"),
                ((Number) s.get("duration_s")).doubleValue(), log.uniqueBytes(), String.join("; ", byType)));
        b.append("| capacity | policy | saving nc | saving all | hit ratio nc | byte hit ratio | of FOO-L | evictions "
                + "| dropped write-backs | dropped puts |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> best = new ArrayList<>();
        for (double cap : report.capacities(group)) {
            for (String p : report.shown(group)) {
                List<PolicyBenchmark.Cell> runs = report.select(group, cap, p);
                if (runs.isEmpty()) {
                    continue;
                }
                PolicyBenchmark.Cell c = runs.getFirst(); // one run: a log is replayed once
                RunResult r = c.result();
                b.append(String.format(Locale.ROOT, "| %.0f%% | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.1f%% | %d | %d | %d |%n",
                        100 * cap, PolicyReport.label(p), 100 * r.savingRateNonCompulsory(), 100 * r.savingRate(),
                        100 * r.nonCompulsoryHitRatio(), 100 * r.byteHitRatio(), 100 * c.savingVsBound(), r.evictions,
                        r.droppedWrites, r.droppedPuts));
            }
            PolicyBenchmark.Cell any = report.select(group, cap, BenchPolicies.DEFAULT).getFirst();
            b.append(String.format(Locale.ROOT, "| %.0f%% | FOO-L bound | %.2f%% | | | | 100%% | | | |%n| %.0f%% | PFOO-L bound | %.2f%% | | | | | | | |%n",
                    100 * cap, 100 * any.boundSavingNonCompulsory(), 100 * cap, 100 * any.pfooSavingNonCompulsory()));
            best.add(String.format(Locale.ROOT, "%.0f%%: %s", 100 * cap, winners(group, cap)));
        }
        b.append("\nMost saved (nc) among the policies, by capacity: ").append(String.join("; ", best)).append(".\n");
    }

    /** The policies (not the oracles) with the highest saving at {@code cap}, with it. */
    private String winners(String group, double cap) {
        double top = BenchPolicies.ALL.stream().mapToDouble(p -> report.stat(group, cap, p, PolicyReport::saving).mean()).max()
                .orElse(0);
        List<String> tied = BenchPolicies.ALL.stream()
                .filter(p -> report.stat(group, cap, p, PolicyReport::saving).mean() >= top - 1e-12).toList();
        return String.join(", ", tied) + String.format(Locale.ROOT, " (%.2f%%)", 100 * top);
    }
}
