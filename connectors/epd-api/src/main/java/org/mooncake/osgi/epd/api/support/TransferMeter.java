package org.mooncake.osgi.epd.api.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.spi.metrics.Metric;

/**
 * Counts a connector's transfers and events for {@code /metrics}: per operation (put, get) the
 * transfers by outcome, their bytes and time (a summary, so rates and MiB/s follow), and named
 * events by label (look-ups by outcome, recomputes). Any thread records; a scrape reads sums.
 */
public final class TransferMeter {
    private final String prefix;
    private final Map<List<String>, LongAdder> transfers = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> bytes = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> timed = new ConcurrentHashMap<>();
    private final Map<List<String>, LongAdder> events = new ConcurrentHashMap<>();
    private final Map<String, String> eventHelp = new ConcurrentHashMap<>();

    /** @param prefix metric names start with it, e.g. {@code mooncake_epd_hidden_state} */
    public TransferMeter(String prefix) {
        this.prefix = prefix;
    }

    private static LongAdder adder(Map<String, LongAdder> m, String k) {
        return m.computeIfAbsent(k, x -> new LongAdder());
    }

    /** One transfer of {@code op} ended: {@code outcome} (ok, exists, failed, ...), bytes moved, time taken. */
    public void transfer(String op, String outcome, long movedBytes, long tookNanos) {
        transfers.computeIfAbsent(List.of(op, outcome), x -> new LongAdder()).increment();
        if (movedBytes > 0) {
            adder(bytes, op).add(movedBytes);
            adder(nanos, op).add(tookNanos);
            adder(timed, op).increment();
        }
    }

    /** One event {@code name} with label {@code label=value}; {@code help} says what it counts. */
    public void event(String name, String help, String label, String value) {
        count(name, help, label, value, 1);
    }

    /** {@code n} more of {@code name} with label {@code label=value} (tokens computed, say). */
    public void count(String name, String help, String label, String value, long n) {
        eventHelp.putIfAbsent(name, help);
        events.computeIfAbsent(List.of(name, label, value), x -> new LongAdder()).add(n);
    }

    /** How many events {@code name} with that label value so far (tests, the demo's evidence). */
    public long events(String name, String value) {
        long n = 0;
        for (var e : events.entrySet()) {
            if (e.getKey().get(0).equals(name) && e.getKey().get(2).equals(value)) {
                n += e.getValue().sum();
            }
        }
        return n;
    }

    /** Transfers of {@code op} that ended with {@code outcome} so far. */
    public long transfers(String op, String outcome) {
        LongAdder a = transfers.get(List.of(op, outcome));
        return a == null ? 0 : a.sum();
    }

    /** Bytes moved by {@code op} so far. */
    public long bytes(String op) {
        LongAdder a = bytes.get(op);
        return a == null ? 0 : a.sum();
    }

    /** Seconds spent moving those bytes. */
    public double seconds(String op) {
        LongAdder a = nanos.get(op);
        return a == null ? 0 : a.sum() / 1e9;
    }

    /** Every family: the transfers' and the events'. */
    public List<Metric> metrics() {
        List<Metric> out = transferMetrics();
        out.addAll(eventMetrics());
        return out;
    }

    /** The transfer families: counts by outcome, bytes, time, MiB/s. */
    public List<Metric> transferMetrics() {
        List<Metric> out = new ArrayList<>();
        List<Metric.Sample> counts = new ArrayList<>();
        transfers.forEach((k, v) -> counts.add(Metric.Sample.of(Map.of("op", k.get(0), "outcome", k.get(1)), v.sum())));
        out.add(new Metric(prefix + "_transfers_total", "Transfers by operation and outcome", Metric.Type.COUNTER, counts));
        List<Metric.Sample> moved = new ArrayList<>();
        List<Metric.Sample> time = new ArrayList<>();
        List<Metric.Sample> rate = new ArrayList<>();
        bytes.forEach((op, b) -> {
            moved.add(Metric.Sample.of(Map.of("op", op), b.sum()));
            time.add(new Metric.Sample("_sum", Map.of("op", op), seconds(op)));
            time.add(new Metric.Sample("_count", Map.of("op", op), adder(timed, op).sum()));
            double s = seconds(op);
            rate.add(Metric.Sample.of(Map.of("op", op), s == 0 ? 0 : b.sum() / s / (1 << 20)));
        });
        out.add(new Metric(prefix + "_bytes_total", "Bytes moved by completed transfers", Metric.Type.COUNTER, moved));
        out.add(new Metric(prefix + "_transfer_seconds", "Time of completed transfers", Metric.Type.SUMMARY, time));
        out.add(new Metric(prefix + "_mib_per_second", "Bytes over transfer time, MiB/s, since start",
                Metric.Type.GAUGE, rate));
        return out;
    }

    /** The event families, one counter each, by name. */
    public List<Metric> eventMetrics() {
        List<Metric> out = new ArrayList<>();
        Map<String, List<Metric.Sample>> byName = new java.util.TreeMap<>();
        events.forEach((k, v) -> byName.computeIfAbsent(k.get(0), x -> new ArrayList<>())
                .add(Metric.Sample.of(Map.of(k.get(1), k.get(2)), v.sum())));
        byName.forEach((name, samples) -> out.add(new Metric(prefix + "_" + name + "_total", eventHelp.get(name),
                Metric.Type.COUNTER, samples)));
        return out;
    }
}
