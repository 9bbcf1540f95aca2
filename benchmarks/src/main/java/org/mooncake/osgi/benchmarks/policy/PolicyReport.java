package org.mooncake.osgi.benchmarks.policy;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.mooncake.osgi.store.api.ObjectDataType;

/** Tables, goal checks and charts from the cells of a policy benchmark run. */
final class PolicyReport {
    /** Mean and sample standard deviation over seeds. */
    record Stat(double mean, double sd, int n) {
        static Stat of(List<Double> xs) {
            double m = xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
            double v = xs.size() < 2 ? 0 : xs.stream().mapToDouble(x -> (x - m) * (x - m)).sum() / (xs.size() - 1);
            return new Stat(m, Math.sqrt(v), xs.size());
        }

        String pct() {
            return String.format(Locale.ROOT, "%.2f ± %.2f", 100 * mean, 100 * sd);
        }
    }

    private final List<PolicyBenchmark.Cell> cells;
    private final PolicyBenchmark.Options opt;
    private final Map<String, Object> goals = new LinkedHashMap<>();

    PolicyReport(List<PolicyBenchmark.Cell> cells, PolicyBenchmark.Options opt) {
        this.cells = cells;
        this.opt = opt;
    }

    Map<String, Object> goals() {
        return goals;
    }

    List<PolicyBenchmark.Cell> select(String group, double capacity, String policy) {
        return cells.stream().filter(c -> c.group().equals(group) && c.capacityFraction() == capacity
                && c.policy().equals(policy)).toList();
    }

    Stat stat(String group, double capacity, String policy, ToDoubleFunction<PolicyBenchmark.Cell> f) {
        return Stat.of(select(group, capacity, policy).stream().map(c -> f.applyAsDouble(c)).toList());
    }

    /** Hidden-state hits over the hidden accesses that could hit (not an object's first). */
    private static double hiddenHit(PolicyBenchmark.Cell c) {
        RunResult.PerType t = c.result().types.get(ObjectDataType.HIDDEN_STATE);
        return t == null ? 0 : t.nonCompulsoryHitRatio();
    }

    private static double kvHit(PolicyBenchmark.Cell c) {
        RunResult.PerType t = c.result().types.get(ObjectDataType.KVCACHE);
        return t == null ? 0 : t.hitRatio();
    }

    static double saving(PolicyBenchmark.Cell c) {
        return c.result().savingRateNonCompulsory();
    }

    private List<String> groups(String prefix) {
        return cells.stream().map(PolicyBenchmark.Cell::group).filter(g -> g.startsWith(prefix)).distinct().toList();
    }

    /** The policies, then the oracles where the group ran them. */
    List<String> shown(String group) {
        List<String> out = new ArrayList<>(BenchPolicies.ALL);
        for (String o : BenchPolicies.ORACLES) {
            if (cells.stream().anyMatch(c -> c.group().equals(group) && c.policy().equals(o))) {
                out.add(o);
            }
        }
        return out;
    }

    /** How a policy is named in tables and charts: oracles say that they know the future. */
    static String label(String policy) {
        return BenchPolicies.ORACLES.contains(policy) ? policy + " (knows the future)" : policy;
    }

    TreeSet<Double> capacities(String group) {
        TreeSet<Double> caps = new TreeSet<>();
        cells.stream().filter(c -> c.group().equals(group)).forEach(c -> caps.add(c.capacityFraction()));
        return caps;
    }

    /** The sweep capacity at which the default policy's hidden hit ratio (non-compulsory) is nearest 34%. */
    double calibration(String group) {
        double best = Double.NaN;
        double bestDistance = Double.MAX_VALUE;
        for (double c : capacities(group)) {
            double d = Math.abs(stat(group, c, BenchPolicies.DEFAULT, PolicyReport::hiddenHit).mean() - 0.34);
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return best;
    }

    String markdown(List<Workload> workloads) {
        StringBuilder b = new StringBuilder();
        List<Workload> generated = workloads.stream().filter(w -> !w.name().startsWith(ACCESS_LOG_PREFIX)).toList();
        if (generated.isEmpty()) {
            b.append(String.format(Locale.ROOT, "Access-log replay: lease %d ms, watermark 0.95, eviction ratio 0.05. Saving = "
                    + "recompute ms saved by hits / ms of all reads; \"nc\" = over non-compulsory reads, the primary figure.%n",
                    opt.leaseMs()));
        } else {
            b.append(String.format(Locale.ROOT, "Policy benchmark: %d sessions, scale %s, %d seeds, lease %d ms, watermark 0.95, "
                    + "eviction ratio 0.05. Saving = recompute ms saved by hits / ms of all accesses; \"nc\" = over "
                    + "non-compulsory accesses (an object's first access can never hit), the primary figure. "
                    + "Mean ± sd over seeds.%n%n", opt.sessions(), opt.scale(), opt.seeds(), opt.leaseMs()));
        }
        if (!generated.isEmpty()) {
            b.append("### Workloads (seed 1)\n\n| workload | requests | KV objects | KV reads | hidden objects | hidden reads | hidden read once | hidden share of bytes | hidden share of distinct cost |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        }
        for (Workload w : generated) {
            Map<String, Object> s = w.summary();
            @SuppressWarnings("unchecked")
            Map<ObjectDataType, Map<String, Long>> t = (Map<ObjectDataType, Map<String, Long>>) s.get("by_type");
            Map<String, Long> kv = t.getOrDefault(ObjectDataType.KVCACHE, Map.of());
            Map<String, Long> hid = t.getOrDefault(ObjectDataType.HIDDEN_STATE, Map.of());
            long unique = (Long) s.get("unique_bytes");
            b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %.1f%% | %.1f%% |%n", w.name(), s.get("requests"),
                    kv.getOrDefault("objects", 0L), kv.getOrDefault("reads", 0L), hid.getOrDefault("objects", 0L),
                    hid.getOrDefault("reads", 0L), hid.getOrDefault("read_once", 0L),
                    100.0 * hid.getOrDefault("bytes", 0L) / Math.max(1, unique),
                    100 * (Double) s.get("hidden_share_of_distinct_cost")));
        }
        List<Map<String, Object>> pointGoals = new ArrayList<>();
        for (String group : groups("seed")) {
            double cal = calibration(group);
            double nominal = group.endsWith("full_history") ? 0.06 : 0.12;
            List<Double> points = new ArrayList<>(List.of(cal));
            if (nominal != cal && capacities(group).contains(nominal)) {
                points.add(nominal);
            }
            for (double point : points) {
                b.append(String.format(Locale.ROOT, "%n### %s at %s: capacity %.0f%% of unique bytes "
                        + "(default hidden hit %.1f%%)%n%n", group, point == cal ? "its calibration point" : "the issue's nominal point",
                        100 * point, 100 * stat(group, point, BenchPolicies.DEFAULT, PolicyReport::hiddenHit).mean()));
                policyTable(b, group, point);
                pointGoals.add(pointGoal(b, group, point, point == cal ? "calibrated" : "nominal"));
            }
            b.append(String.format(Locale.ROOT, "%n#### %s: saving (nc) by capacity%n%n", group));
            sweepTable(b, group);
        }
        goals.put("calibration_points", pointGoals);
        List<Map<String, Object>> worst = new ArrayList<>();
        List<String> others = new ArrayList<>(groups("trace-"));
        others.addAll(groups("adversarial"));
        if (!others.isEmpty()) {
            b.append("\n### Trace replay and adversarial workloads\n\n| workload | capacity | policy | saving nc | saving all | hidden hit nc | KV hit | prefix KV hit | of FOO-L | Δ vs default (points) |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        }
        for (String group : others) {
            for (double cap : capacities(group)) {
                Stat def = stat(group, cap, BenchPolicies.DEFAULT, PolicyReport::saving);
                for (String p : BenchPolicies.ALL) {
                    Stat s = stat(group, cap, p, PolicyReport::saving);
                    b.append(String.format(Locale.ROOT, "| %s | %.0f%% | %s | %s | %s | %s | %s | %s | %s | %+.2f |%n", group, 100 * cap, p,
                            s.pct(), stat(group, cap, p, c -> c.result().savingRate()).pct(),
                            stat(group, cap, p, PolicyReport::hiddenHit).pct(), stat(group, cap, p, PolicyReport::kvHit).pct(),
                            stat(group, cap, p, c -> c.result().prefixKvHitRatio()).pct(),
                            stat(group, cap, p, PolicyBenchmark.Cell::savingVsBound).pct(), 100 * (s.mean() - def.mean())));
                }
                double delta = stat(group, cap, BenchPolicies.COST_AWARE, PolicyReport::saving).mean() - def.mean();
                worst.add(Map.of("workload", group, "capacity_fraction", cap, "cost_aware_minus_default", delta,
                        "within_one_point", delta >= -0.01 || group.endsWith("+hidden")));
            }
        }
        goals.put("no_workload_below_default", worst);
        for (Workload w : workloads) {
            if (w.name().startsWith(ACCESS_LOG_PREFIX) && !capacities(w.name()).isEmpty()) {
                new AccessLogReport(this, w).append(b);
            }
        }
        learnedTable(b);
        return b.toString();
    }

    /** Groups of access-log replays are named by their workload, which starts so. */
    static final String ACCESS_LOG_PREFIX = "log-";

    /**
     * What cost-aware had learned at the end of its runs where connectors pass the group-only
     * hint: the quiet time after which it took a session to have ended, the share of ended
     * sessions' group-only objects read again, and in how many seeds it followed the hint.
     */
    private void learnedTable(StringBuilder b) {
        StringBuilder rows = new StringBuilder();
        for (String group : cells.stream().map(PolicyBenchmark.Cell::group).distinct().toList()) {
            for (double cap : capacities(group)) {
                List<PolicyBenchmark.Cell> runs = select(group, cap, BenchPolicies.COST_AWARE);
                if (runs.isEmpty() || runs.stream().noneMatch(c -> c.result().learned.containsKey("group_only_read_again_share"))) {
                    continue;
                }
                long followed = runs.stream().filter(c -> c.result().learned.getOrDefault("group_only_hint_followed", 1.0) > 0).count();
                rows.append(String.format(Locale.ROOT, "| %s | %.0f%% | %s | %s | %d of %d |%n", group, 100 * cap,
                        learnedMean(runs, "group_end_ms", 1, "%.0f"), learnedMean(runs, "group_only_read_again_share", 100, "%.1f%%"),
                        followed, runs.size()));
            }
        }
        if (!rows.isEmpty()) {
            b.append("\n### What cost-aware learned about the group-only hint (end of run, mean over seeds)\n\n"
                    + "| workload | capacity | session ended after (ms) | group-only objects of ended sessions read again | hint followed |\n"
                    + "|---|---:|---:|---:|---:|\n").append(rows);
        }
    }

    private static String learnedMean(List<PolicyBenchmark.Cell> runs, String figure, double scale, String format) {
        List<Double> xs = runs.stream().map(c -> c.result().learned.get(figure)).filter(java.util.Objects::nonNull).toList();
        return xs.isEmpty() ? "–" : String.format(Locale.ROOT, format, scale * xs.stream().mapToDouble(Double::doubleValue).average().orElseThrow());
    }

    private Map<String, Object> pointGoal(StringBuilder b, String group, double cap, String kind) {
        Stat def = stat(group, cap, BenchPolicies.DEFAULT, PolicyReport::saving);
        Stat bal = stat(group, cap, BenchPolicies.BALANCED, PolicyReport::saving);
        Stat ours = stat(group, cap, BenchPolicies.COST_AWARE, PolicyReport::saving);
        Stat bound = stat(group, cap, BenchPolicies.COST_AWARE, PolicyBenchmark.Cell::boundSavingNonCompulsory);
        double better = Math.max(def.mean(), bal.mean());
        double closed = (ours.mean() - better) / (bound.mean() - better);
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("workload", group);
        g.put("point", kind);
        g.put("capacity_fraction", cap);
        g.put("better_of_default_and_balanced", better);
        g.put("cost_aware", ours.mean());
        g.put("foo_l", bound.mean());
        g.put("beats_better", ours.mean() > better);
        g.put("gap_closed", closed);
        b.append(String.format(Locale.ROOT, "%nCost-aware %s the better of default and balanced (%.2f%% vs %.2f%%); it closes "
                + "%.0f%% of the gap to FOO-L (%.2f%%).", ours.mean() > better ? "**beats**" : "**does not beat**",
                100 * ours.mean(), 100 * better, 100 * closed, 100 * bound.mean()));
        List<String> shown = shown(group);
        for (String o : shown.subList(BenchPolicies.ALL.size(), shown.size())) {
            Stat knows = stat(group, cap, o, PolicyReport::saving);
            g.put(o.replace('-', '_'), knows.mean());
            b.append(String.format(Locale.ROOT, " %s, which knows the future, reaches %.2f%%: %.0f%% of the gap.", o,
                    100 * knows.mean(), 100 * (knows.mean() - better) / (bound.mean() - better)));
        }
        b.append('\n');
        return g;
    }

    private void policyTable(StringBuilder b, String group, double cap) {
        b.append("| policy | saving nc | saving all | hidden hit nc | hidden byte hit | hidden share of cache | KV hit | prefix KV hit | of FOO-L | evictions | round mean / max ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String p : shown(group)) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %.2f / %.1f |%n",
                    label(p),
                    stat(group, cap, p, PolicyReport::saving).pct(), stat(group, cap, p, c -> c.result().savingRate()).pct(),
                    stat(group, cap, p, PolicyReport::hiddenHit).pct(),
                    stat(group, cap, p, c -> c.result().types.getOrDefault(ObjectDataType.HIDDEN_STATE, new RunResult.PerType())
                            .byteHitRatio()).pct(),
                    stat(group, cap, p, c -> c.result().residentShare(ObjectDataType.HIDDEN_STATE)).pct(),
                    stat(group, cap, p, PolicyReport::kvHit).pct(), stat(group, cap, p, c -> c.result().prefixKvHitRatio()).pct(),
                    stat(group, cap, p, PolicyBenchmark.Cell::savingVsBound).pct(),
                    stat(group, cap, p, c -> c.result().evictions).mean(), stat(group, cap, p, c -> c.result().meanRoundMs()).mean(),
                    stat(group, cap, p, c -> c.result().roundNanosMax / 1e6).mean()));
        }
        b.append(String.format(Locale.ROOT, "| FOO-L bound | %s | | | | | | | 100%% | | |%n| PFOO-L bound | %s | | | | | | | | | |%n",
                stat(group, cap, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::boundSavingNonCompulsory).pct(),
                stat(group, cap, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::pfooSavingNonCompulsory).pct()));
    }

    private void sweepTable(StringBuilder b, String group) {
        List<String> shown = shown(group);
        b.append("| capacity |");
        shown.forEach(p -> b.append(' ').append(p).append(" |"));
        b.append(" FOO-L | PFOO-L | default hidden hit |\n|---:|");
        shown.forEach(p -> b.append("---:|"));
        b.append("---:|---:|---:|\n");
        for (double cap : capacities(group)) {
            b.append(String.format(Locale.ROOT, "| %.0f%% |", 100 * cap));
            for (String p : shown) {
                b.append(' ').append(stat(group, cap, p, PolicyReport::saving).pct()).append(" |");
            }
            b.append(String.format(Locale.ROOT, " %s | %s | %s |%n",
                    stat(group, cap, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::boundSavingNonCompulsory).pct(),
                    stat(group, cap, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::pfooSavingNonCompulsory).pct(),
                    stat(group, cap, BenchPolicies.DEFAULT, PolicyReport::hiddenHit).pct()));
        }
    }

    void charts(Path dir) throws IOException {
        for (String group : groups(ACCESS_LOG_PREFIX)) {
            sweepChart(dir.resolve("policies-" + group + "-saving.png"), group, "saving rate over non-compulsory accesses (%)",
                    PolicyReport::saving, true);
        }
        for (String group : groups("seed")) {
            sweepChart(dir.resolve("policies-" + group + "-saving.png"), group, "saving rate over non-compulsory accesses (%)",
                    PolicyReport::saving, true);
            sweepChart(dir.resolve("policies-" + group + "-hidden-hit.png"), group, "hidden-state hit ratio (%)",
                    PolicyReport::hiddenHit, false);
        }
        List<String> others = new ArrayList<>(groups("trace-"));
        others.addAll(groups("adversarial"));
        if (others.isEmpty()) {
            return;
        }
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(520)
                .title("Saving (non-compulsory) per workload; last capacity of each").yAxisTitle("%").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLabelRotation(20);
        for (String p : BenchPolicies.ALL) {
            List<Double> ys = new ArrayList<>();
            for (String g : others) {
                ys.add(100 * stat(g, capacities(g).last(), p, PolicyReport::saving).mean());
            }
            chart.addSeries(p, others, ys);
        }
        List<Double> bound = new ArrayList<>();
        for (String g : others) {
            bound.add(100 * stat(g, capacities(g).last(), BenchPolicies.DEFAULT, PolicyBenchmark.Cell::boundSavingNonCompulsory).mean());
        }
        chart.addSeries("FOO-L", others, bound);
        BitmapEncoder.saveBitmap(chart, dir.resolve("policies-trace-adversarial.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private void sweepChart(Path file, String group, String yTitle, ToDoubleFunction<PolicyBenchmark.Cell> f, boolean withBounds)
            throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(520).title(group + ": " + yTitle)
                .xAxisTitle("capacity (% of unique bytes)").yAxisTitle(yTitle).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        List<Double> xs = capacities(group).stream().map(c -> 100 * c).toList();
        for (String p : shown(group)) {
            var series = chart.addSeries(label(p), xs,
                    capacities(group).stream().map(c -> 100 * stat(group, c, p, f).mean()).toList());
            if (BenchPolicies.ORACLES.contains(p)) {
                series.setLineStyle(org.knowm.xchart.style.lines.SeriesLines.DASH_DOT);
            }
        }
        if (withBounds) {
            chart.addSeries("FOO-L bound", xs, capacities(group).stream()
                    .map(c -> 100 * stat(group, c, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::boundSavingNonCompulsory).mean()).toList());
            chart.addSeries("PFOO-L bound", xs, capacities(group).stream()
                    .map(c -> 100 * stat(group, c, BenchPolicies.DEFAULT, PolicyBenchmark.Cell::pfooSavingNonCompulsory).mean()).toList());
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
