package org.mooncake.osgi.epd.demo;

import java.util.Locale;

/** The printed report: cases and their counters, the transfer table, the load figures, the failures. */
public final class Report {
    private Report() {
    }

    public static String render(DemoReport r) {
        StringBuilder b = new StringBuilder();
        DemoOptions o = r.options();
        b.append('\n').append("EPD demo, model ").append(o.model().id()).append(", mode ").append(o.mode().id())
                .append(": ").append(r.passed()).append('/').append(r.cases().size()).append(" cases passed");
        if (r.compared() > 0) {
            b.append(", ").append(r.exact()).append('/').append(r.compared())
                    .append(" EPD answers equal to the aggregated worker's, token for token");
        }
        b.append("\n\n").append(cases(r));
        if (o.mode().epd()) {
            b.append("\nE = encoder, P = prefill, D = decode. put/get: the hidden-state connector's ok transfers; enc: ")
                    .append("vision-encoder passes; hit/miss: hidden-state look-ups; KV: the KV connector's ok transfers; ")
                    .append("D pre: prompt tokens the decode computed; store: bytes the E, P and D store clients moved.\n");
        }
        if (!r.transfers().isEmpty()) {
            b.append("\nTransfers: each connector during ").append(TransferTable.WINDOW_REQUESTS)
                    .append(" requests sent one at a time after the load (MiB/s: the median request's), vs plain store")
                    .append(" puts/gets\nof what one request moved, on the same worker, after the store sat idle as long as")
                    .append(" a request took (the median of ").append(TransferTable.PROBES)
                    .append(" probes). Goal: ratio >= ").append(TransferRow.GOAL)
                    .append("; a MISS is reported, it does not fail the demo.\nThe probe puts and gets one object at a time;")
                    .append(" the KV connector moves a request's blocks in one batch.\nrun MiB/s: the connector over the whole")
                    .append(" run before the window, cold start and load contention included.\n").append(transfers(r));
        }
        if (r.load() != null) {
            b.append('\n').append(load(r.load()));
        }
        if (!r.failures().isEmpty()) {
            b.append("\nFAILED (").append(r.failures().size()).append("):\n");
            r.failures().forEach(f -> b.append("  - ").append(f).append('\n'));
        }
        return b.toString();
    }

    static String cases(DemoReport r) {
        TextTable t = new TextTable("case", "result", "exact", "E put", "E enc", "E hit", "P hit", "P get", "P miss",
                "P enc", "KV put", "KV get", "D pre", "store MiB", "EPD ms", "aggr ms");
        for (CaseResult c : r.cases()) {
            for (StepResult s : c.steps()) {
                String name = c.name() + (s.label().isEmpty() ? "" : " (" + s.label() + ")");
                boolean epd = s.epd() != null;
                t.row(name, c.passed() ? "ok" : "FAILED",
                        s.exact() == null ? "n/a" : s.exact() ? "yes" : "NO",
                        epd ? n(s.delta(Role.ENCODER, Evidence.HS + "transfers_total", "op", "put", "outcome", "ok")) : "-",
                        epd ? n(s.delta(Role.ENCODER, Evidence.WORKER + "encoder_passes_total")) : "-",
                        epd ? n(s.delta(Role.ENCODER, Evidence.HS + "lookups_total", "outcome", "hit")) : "-",
                        epd ? n(s.delta(Role.PREFILL, Evidence.HS + "lookups_total", "outcome", "hit")) : "-",
                        epd ? n(s.delta(Role.PREFILL, Evidence.HS + "transfers_total", "op", "get", "outcome", "ok")) : "-",
                        epd ? n(s.delta(Role.PREFILL, Evidence.HS + "lookups_total", "outcome", "miss")) : "-",
                        epd ? n(s.delta(Role.PREFILL, Evidence.WORKER + "encoder_passes_total")) : "-",
                        epd ? n(s.delta(Role.PREFILL, Evidence.KV + "transfers_total", "op", "put", "outcome", "ok")) : "-",
                        epd ? n(s.delta(Role.DECODE, Evidence.KV + "transfers_total", "op", "get", "outcome", "ok")) : "-",
                        epd ? n(s.delta(Role.DECODE, Evidence.WORKER + "prefill_tokens_total")) : "-",
                        epd ? f(storeBytes(s) / TransferRow.MIB, 2) : "-",
                        epd ? f(s.epd().totalMillis(), 0) : "-",
                        s.aggregated() != null ? f(s.aggregated().totalMillis(), 0) : "-");
            }
        }
        return t.render();
    }

    static double storeBytes(StepResult s) {
        return s.delta(Role.ENCODER, Evidence.CLIENT_BYTES) + s.delta(Role.PREFILL, Evidence.CLIENT_BYTES)
                + s.delta(Role.DECODE, Evidence.CLIENT_BYTES);
    }

    static String transfers(DemoReport r) {
        TextTable t = new TextTable("transfer", "worker", "objects", "MiB", "seconds", "MiB/s", "plain MiB/s", "ratio",
                "goal", "run MiB/s", "note");
        for (TransferRow row : r.transfers()) {
            t.row(row.name(), row.worker().id(), row.objects(), f(row.bytes() / TransferRow.MIB, 2), f(row.seconds(), 3),
                    f(row.mibPerS(), 1), row.plain() == null ? "-" : f(row.plain().mibPerS(), 1), f(row.ratio(), 2),
                    row.verdict(), f(row.runMibPerS(), 1), row.note());
        }
        return t.render();
    }

    static String load(DemoReport.Load l) {
        LoadRun any = l.epd() != null ? l.epd() : l.aggregated();
        StringBuilder b = new StringBuilder("Load: ").append(l.rounds()).append(l.rounds() == 1 ? " round of " : " rounds of ")
                .append(any.requests() / Math.max(1, l.rounds())).append(" requests per path, concurrency ")
                .append(any.concurrency()).append(", streamed; media new each round, so every request encodes\n");
        TextTable t = new TextTable("path", "requests", "ok", "seconds", "req/s", "TTFT p50 ms", "TTFT p95 ms",
                "latency p50 ms", "latency p95 ms");
        for (LoadRun run : new LoadRun[] {l.epd(), l.aggregated()}) {
            if (run != null) {
                t.row(run.path(), run.requests(), run.ok(), f(run.seconds(), 1), f(run.requestsPerSecond(), 2),
                        f(run.ttftMillis(50), 0), f(run.ttftMillis(95), 0), f(run.latencyMillis(50), 0),
                        f(run.latencyMillis(95), 0));
            }
        }
        b.append(t.render());
        if (l.epd() != null && l.aggregated() != null) {
            b.append("EPD against aggregated: throughput ").append(change(l.epd().requestsPerSecond(),
                    l.aggregated().requestsPerSecond(), true))
                    .append(", TTFT p50 ").append(change(l.epd().ttftMillis(50), l.aggregated().ttftMillis(50), false))
                    .append(", p95 ").append(change(l.epd().ttftMillis(95), l.aggregated().ttftMillis(95), false))
                    .append(", latency p50 ").append(change(l.epd().latencyMillis(50), l.aggregated().latencyMillis(50), false))
                    .append(", p95 ").append(change(l.epd().latencyMillis(95), l.aggregated().latencyMillis(95), false))
                    .append("\nload answers equal: ").append(l.exact()).append('/').append(l.compared()).append('\n');
        }
        return b.toString();
    }

    /** {@code x1.23 (better)} / {@code +12% (worse)}: a ratio for throughput, a relative change for times. */
    static String change(double epd, double aggregated, boolean higherIsBetter) {
        if (Double.isNaN(epd) || Double.isNaN(aggregated) || aggregated == 0) {
            return "n/a";
        }
        if (higherIsBetter) {
            return "x" + f(epd / aggregated, 2) + (epd >= aggregated ? " (speed-up)" : " (cost)");
        }
        double pct = (epd - aggregated) / aggregated * 100;
        return String.format(Locale.ROOT, "%+.0f%%", pct) + (pct <= 0 ? " (faster)" : " (slower)");
    }

    static String n(double v) {
        return Expectation.number(v);
    }

    static String f(double v, int decimals) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
