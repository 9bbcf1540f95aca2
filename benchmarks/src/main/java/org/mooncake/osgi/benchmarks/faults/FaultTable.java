package org.mooncake.osgi.benchmarks.faults;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.mooncake.osgi.benchmarks.Machine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** A fault run as a table (stdout, faults.txt), JSON (faults.json) and charts (faults.png, soak-p99.png). */
final class FaultTable {
    private FaultTable() {
    }

    static String text(FaultRun run) {
        FaultReport r = run.report();
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "bench faults: %d faults in %.0f s, seed %d, %d storage nodes, %d clients%n",
                r.faults(), run.seconds(), run.options().seed(), run.options().storage(), run.options().clients()));
        run.notes().forEach(n -> s.append("  note: ").append(n).append('\n'));
        s.append(String.format(Locale.ROOT, "%n%-18s %7s %12s %12s%n", "fault kind", "faults", "recover p50", "recover max"));
        r.faultsByKind().forEach((k, n) -> {
            long[] ms = r.recoverMsByKind().get(k);
            s.append(String.format(Locale.ROOT, "%-18s %7d %12s %12s%n", k, n, ms == null ? "-" : ms[0] + " ms",
                    ms == null ? "-" : ms[1] + " ms"));
        });
        s.append(String.format(Locale.ROOT, "faults with a put in flight: %d, with a get in flight: %d, not recovered: %d%n",
                r.faultsWithPutInFlight(), r.faultsWithGetInFlight(), r.unrecovered()));
        s.append(String.format(Locale.ROOT, "%noperations attempted %d = succeeded %d + failed cleanly %d + cut off %d"
                + " + lost %d + corrupt %d + half-visible %d  [%s]%n", r.attempted(), r.succeeded(), r.failedCleanly(),
                r.cutOff(), r.lost(), r.corrupt(), r.halfVisible(), r.reconciles() ? "reconciles" : "DOES NOT RECONCILE"));
        s.append("failed cleanly, by code:\n");
        r.failedByCode().forEach((c, n) -> s.append(String.format(Locale.ROOT, "  %-48s %8d%n", c, n)));
        s.append("acknowledged objects, by fate:\n");
        r.objects().forEach((f, n) -> s.append(String.format(Locale.ROOT, "  %-48s %8d%n", f, n)));
        s.append(String.format(Locale.ROOT, "corrupt or half-visible: %d%s%n", r.corrupt() + r.halfVisible()
                + r.objects().getOrDefault("corrupt", 0L), r.corrupt() + r.halfVisible() + r.objects().getOrDefault("corrupt", 0L) == 0
                        ? " (must be 0)" : "  <-- A BUG IN THE STORE"));
        if (!run.p99PerMinute().isEmpty() && run.options().soakMinutes() > 0) {
            s.append("\np99 latency per minute (ms):");
            run.p99PerMinute().forEach(m -> s.append(String.format(Locale.ROOT, " %.1f", m.p99Ms())));
            s.append('\n');
            run.resources().forEach(c -> s.append(String.format(Locale.ROOT,
                    "  %-12s heap %7d -> %7d KiB, fds %5d -> %5d%s%n", c.process(), c.start().heapUsedKiB(),
                    c.end().heapUsedKiB(), c.start().fds(), c.end().fds(),
                    c.start().pid() == c.end().pid() ? "" : " (restarted by a fault in between)")));
        }
        return s.toString();
    }

    static void write(FaultRun run, Path out) throws IOException {
        Files.writeString(out.resolve("faults.txt"), text(run));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("machine", Machine.describe());
        FaultSuite.Options o = run.options();
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("faults", o.faults());
        options.put("kinds", o.kinds().stream().map(FaultKind::id).toList());
        options.put("seed", o.seed());
        options.put("soakMinutes", o.soakMinutes());
        options.put("storage", o.storage());
        options.put("clients", o.clients());
        options.put("distribution", o.distribution().toString());
        json.put("options", options);
        json.put("seconds", run.seconds());
        json.put("report", run.report());
        json.put("reconciles", run.report().reconciles());
        json.put("notes", run.notes());
        json.put("p99PerMinute", run.p99PerMinute());
        json.put("resources", run.resources());
        json.put("faults", run.faults());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("faults.json").toFile(), json);
        System.setProperty("java.awt.headless", "true");
        BitmapEncoder.saveBitmap(recoveryChart(run.report()), out.resolve("faults.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        if (run.options().soakMinutes() > 0 && !run.p99PerMinute().isEmpty()) {
            BitmapEncoder.saveBitmap(p99Chart(run), out.resolve("soak-p99.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        }
    }

    static CategoryChart recoveryChart(FaultReport r) {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(550)
                .title("Time to recover after each kind of fault (" + r.faults() + " faults)").xAxisTitle("fault kind")
                .yAxisTitle("ms until a put and a get succeed again").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLabelRotation(30); // nine kinds' names side by side overlap
        List<String> kinds = new ArrayList<>(r.recoverMsByKind().keySet());
        if (kinds.isEmpty()) {
            kinds.add("none");
        }
        chart.addSeries("p50", kinds, kinds.stream().map(k -> (Number) value(r, k, 0)).toList());
        chart.addSeries("max", kinds, kinds.stream().map(k -> (Number) value(r, k, 1)).toList());
        return chart;
    }

    private static long value(FaultReport r, String kind, int i) {
        long[] ms = r.recoverMsByKind().get(kind);
        return ms == null ? 0 : ms[i];
    }

    static XYChart p99Chart(FaultRun run) {
        XYChart chart = new XYChartBuilder().width(900).height(400).title("Soak: p99 latency of the load per minute")
                .xAxisTitle("minute").yAxisTitle("p99 latency (ms)").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.addSeries("p99", run.p99PerMinute().stream().map(m -> (Number) m.minute()).toList(),
                run.p99PerMinute().stream().map(m -> (Number) m.p99Ms()).toList());
        return chart;
    }
}
