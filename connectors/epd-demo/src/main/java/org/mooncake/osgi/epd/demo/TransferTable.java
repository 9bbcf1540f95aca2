package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The four transfers of disaggregation (hidden state saved by the encoder and loaded by the
 * prefill, KV saved by the prefill and loaded by the decode), from the connectors' counters, each
 * set beside the same worker's plain store put or get of objects of the same size.
 *
 * <p>The ratio is taken over a window of {@link #WINDOW_REQUESTS} requests sent one at a time
 * after the load phase, because the probe runs alone on a warm process: over the whole run the
 * connectors' first transfers run cold code, and during the load the seven processes share the
 * cores, which would charge the connectors for time the probe is never charged. The whole run's
 * rate is kept beside it. The plain side has the connectors' shape: each probe moves what one
 * request moved (one hidden state; a request's KV blocks), after the store sat idle for as long as
 * a worker's transfers were apart in the window (a request's time), and before its gets as long
 * again. A plain get right after its own put finds connections, threads and caches warm that a
 * request finds idle: on 2 vCPUs a 1 MiB get over loopback TCP ran at 500-700 MiB/s warm and
 * 150-250 after 300 ms idle, which alone would have "shown" the connector at half the plain
 * rate. Each side's rate is the median of its requests or probes: a transfer of a few
 * milliseconds that meets a collection or a compile elsewhere on two cores would otherwise swing
 * the ratio by half.
 */
public final class TransferTable {
    /** The probe moves at most this much per row: the store's segment also holds the run's objects. */
    static final long PROBE_MAX_BYTES = 64L << 20;
    /** The worker's probe takes at most this many objects. */
    static final int PROBE_MAX_COUNT = 256;
    /** Requests of the measuring window: one new image each, so each moves one hidden state and its KV. */
    public static final int WINDOW_REQUESTS = 12;
    /** Probes per row: each idles twice for about a request's time, so fewer than the window's requests. */
    public static final int PROBES = 6;
    /** The longest idle gap a probe takes, ms (a slow request must not stretch the demo by minutes). */
    static final long MAX_GAP_MS = 600;

    /** The idle gap of the probes: the window's median request time, within {@link #MAX_GAP_MS}. */
    public static long gapMs(double medianRequestMillis) {
        return Double.isNaN(medianRequestMillis) ? 0 : Math.min(MAX_GAP_MS, Math.round(medianRequestMillis));
    }

    private TransferTable() {
    }

    /** The rows from the counters' change over a stretch of the run: the rate is bytes over time. */
    public static List<TransferRow> fromRun(Map<Role, Metrics> run) {
        return fromWindow(List.of(run));
    }

    /**
     * The rows from the counters' change during each request of a window: totals over the window,
     * and the median of the requests' rates.
     */
    public static List<TransferRow> fromWindow(List<Map<Role, Metrics>> requests) {
        return List.of(
                row("hidden save", Role.ENCODER, Evidence.HS, "put", requests),
                row("hidden load", Role.PREFILL, Evidence.HS, "get", requests),
                row("KV save", Role.PREFILL, Evidence.KV, "put", requests),
                row("KV load", Role.DECODE, Evidence.KV, "get", requests));
    }

    private static TransferRow row(String name, Role worker, String prefix, String op,
            List<Map<Role, Metrics>> requests) {
        long count = 0;
        double seconds = 0;
        double bytes = 0;
        List<Double> rates = new ArrayList<>();
        for (Map<Role, Metrics> request : requests) {
            Metrics m = request.getOrDefault(worker, Metrics.empty());
            long c = Math.round(m.sum(prefix + "transfer_seconds_count", "op", op));
            double s = m.sum(prefix + "transfer_seconds_sum", "op", op);
            double b = m.sum(prefix + "bytes_total", "op", op);
            if (c > 0 && s > 0) {
                rates.add(b / s / TransferRow.MIB);
            }
            count += c;
            seconds += s;
            bytes += b;
        }
        return new TransferRow(name, worker, prefix.equals(Evidence.HS) ? "hidden_state" : "kv", op, count, bytes,
                seconds, Percentiles.of(rates, 50), null, count == 0 ? "no transfers" : "", Double.NaN);
    }

    /** The figure with the median rate (the upper one of an even count). */
    static ProbeResult.Figure median(List<ProbeResult.Figure> figures) {
        List<ProbeResult.Figure> sorted = new ArrayList<>(figures);
        sorted.sort(java.util.Comparator.comparingDouble(ProbeResult.Figure::mibPerS));
        return sorted.get(sorted.size() / 2);
    }

    /** The window's rows with each one's rate over the whole run beside it. */
    public static List<TransferRow> withRun(List<TransferRow> window, List<TransferRow> run) {
        List<TransferRow> out = new ArrayList<>();
        for (int i = 0; i < window.size(); i++) {
            out.add(window.get(i).withRun(run.get(i)));
        }
        return out;
    }

    /**
     * Probes each row's worker with objects of the row's mean size, each probe as many as one
     * request of the window moved, idle {@code gapMs} before its puts and again before its gets,
     * and sets the put or get figure beside it: the median of {@link #PROBES} probes, after a short
     * one that warms the plain path as the window's requests warmed the connector's.
     */
    public static List<TransferRow> probe(List<TransferRow> rows, Endpoints cluster, DemoHttp http, long gapMs)
            throws IOException, InterruptedException {
        List<TransferRow> out = new ArrayList<>();
        for (TransferRow r : rows) {
            if (r.objects() == 0 || r.meanObjectBytes() == 0) {
                out.add(r);
                continue;
            }
            long size = r.meanObjectBytes();
            long perRequest = Math.max(1, Math.round((double) r.objects() / WINDOW_REQUESTS));
            int count = (int) Math.max(1, Math.min(Math.min(perRequest, PROBE_MAX_COUNT), PROBE_MAX_BYTES / size));
            http.probe(cluster.url(r.worker()), size, count, 0);
            List<ProbeResult.Figure> figures = new ArrayList<>();
            for (int i = 0; i < PROBES; i++) {
                ProbeResult p = http.probe(cluster.url(r.worker()), size, count, gapMs);
                figures.add(r.op().equals("put") ? p.put() : p.get());
            }
            String note = count < perRequest ? "plain: " + count + " of " + perRequest + " objects a probe" : "";
            out.add(r.withPlain(median(figures), note));
        }
        return out;
    }
}
