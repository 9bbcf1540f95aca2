package org.mooncake.osgi.epd.proxy.impl;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;

/**
 * The proxy's counters. Request threads only add (LongAdders, no lock); a scrape reads them and
 * the registry's current snapshot, never waiting.
 */
final class ProxyMetrics {
    /** Outcomes shown even before they first happen. */
    static final List<String> OUTCOMES = List.of("ok", "bad_request", "model_not_found", "unavailable",
            "upstream_error", "upstream_rejected", "timeout", "client_disconnected", "stream_error");

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<Role, LongAdder> stageNanos = new EnumMap<>(Role.class);
    private final Map<Role, LongAdder> stageCount = new EnumMap<>(Role.class);
    private final Map<Role, LongAdder> retries = new EnumMap<>(Role.class);
    private final LongAdder firstChunkNanos = new LongAdder();
    private final LongAdder firstChunkCount = new LongAdder();

    ProxyMetrics() {
        for (String o : OUTCOMES) {
            requests.put(o, new LongAdder());
        }
        for (Role r : Role.values()) {
            stageNanos.put(r, new LongAdder());
            stageCount.put(r, new LongAdder());
            retries.put(r, new LongAdder());
        }
    }

    void request(String outcome) {
        requests.computeIfAbsent(outcome, o -> new LongAdder()).increment();
    }

    void stage(Role stage, long nanos) {
        stageNanos.get(stage).add(nanos);
        stageCount.get(stage).increment();
    }

    void retry(Role stage) {
        retries.get(stage).increment();
    }

    void firstChunk(long nanos) {
        firstChunkNanos.add(nanos);
        firstChunkCount.increment();
    }

    long requests(String outcome) {
        LongAdder a = requests.get(outcome);
        return a == null ? 0 : a.sum();
    }

    long retries(Role stage) {
        return retries.get(stage).sum();
    }

    long stageCount(Role stage) {
        return stageCount.get(stage).sum();
    }

    List<Metric> metrics(InstanceRegistry.Snapshot instances) {
        List<Metric> out = new ArrayList<>();
        List<Sample> byOutcome = new ArrayList<>();
        requests.forEach((o, n) -> byOutcome.add(Sample.of(Map.of("outcome", o), n.sum())));
        out.add(new Metric("mooncake_epd_proxy_requests_total",
                "Chat completion requests by how they ended", Type.COUNTER, byOutcome));
        List<Sample> stages = new ArrayList<>();
        for (Role r : Role.values()) {
            stages.add(new Sample("_sum", Map.of("stage", r.wire), stageNanos.get(r).sum() / 1e9));
            stages.add(new Sample("_count", Map.of("stage", r.wire), stageCount.get(r).sum()));
        }
        out.add(new Metric("mooncake_epd_proxy_stage_seconds",
                "Time of each successful stage, retries included (decode: until the last byte relayed)",
                Type.SUMMARY, stages));
        out.add(new Metric("mooncake_epd_proxy_first_chunk_seconds",
                "Time from a streamed request's arrival to its first relayed chunk", Type.SUMMARY,
                List.of(new Sample("_sum", Map.of(), firstChunkNanos.sum() / 1e9),
                        new Sample("_count", Map.of(), firstChunkCount.sum()))));
        List<Sample> retried = new ArrayList<>();
        for (Role r : Role.values()) {
            retried.add(Sample.of(Map.of("stage", r.wire), retries.get(r).sum()));
        }
        out.add(new Metric("mooncake_epd_proxy_retries_total", "Attempts repeated on another instance, by stage",
                Type.COUNTER, retried));
        List<Sample> counts = new ArrayList<>();
        for (Role r : Role.values()) {
            long healthy = instances.healthy(r).size();
            long all = instances.all().stream().filter(i -> i.role() == r).count();
            counts.add(Sample.of(Map.of("role", r.wire, "healthy", "true"), healthy));
            counts.add(Sample.of(Map.of("role", r.wire, "healthy", "false"), all - healthy));
        }
        out.add(new Metric("mooncake_epd_proxy_instances", "Registered worker instances by role and health",
                Type.GAUGE, counts));
        return out;
    }
}
