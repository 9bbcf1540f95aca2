package org.mooncake.osgi.transport.ucx;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.spi.metrics.Metric;

/** Counters per UCX transport path ("posix/memory", "tcp/lo"): written under the worker's lock (atomics), read by scrapes. */
final class UcxMetrics {
    /** The figures of one path. */
    static final class Path {
        final AtomicLong bytesRead = new AtomicLong();
        final AtomicLong bytesWritten = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong endpoints = new AtomicLong();
        final AtomicLong connects = new AtomicLong();
    }

    private final ConcurrentMap<String, Path> paths = new ConcurrentHashMap<>();
    final AtomicLong timeouts = new AtomicLong();

    Path path(String name) {
        return paths.computeIfAbsent(name, n -> new Path());
    }

    void connected(String name) {
        Path p = path(name);
        p.endpoints.incrementAndGet();
        p.connects.incrementAndGet();
    }

    void disconnected(String name) {
        path(name).endpoints.decrementAndGet();
    }

    /** The figures, as of now; {@code exposed} is the number of segments this process serves. */
    List<Metric> metrics(int exposed) {
        List<Metric.Sample> read = new ArrayList<>();
        List<Metric.Sample> written = new ArrayList<>();
        List<Metric.Sample> errors = new ArrayList<>();
        List<Metric.Sample> endpoints = new ArrayList<>();
        List<Metric.Sample> connects = new ArrayList<>();
        paths.forEach((name, p) -> {
            int slash = name.indexOf('/');
            Map<String, String> labels = Map.of("ucx_transport", slash < 0 ? name : name.substring(0, slash),
                    "device", slash < 0 ? "" : name.substring(slash + 1));
            read.add(Metric.Sample.of(labels, p.bytesRead.get()));
            written.add(Metric.Sample.of(labels, p.bytesWritten.get()));
            errors.add(Metric.Sample.of(labels, p.errors.get()));
            endpoints.add(Metric.Sample.of(labels, p.endpoints.get()));
            connects.add(Metric.Sample.of(labels, p.connects.get()));
        });
        return List.of(
                new Metric("mooncake_ucx_read_bytes_total", "Bytes read from remote segments through UCX",
                        Metric.Type.COUNTER, read),
                new Metric("mooncake_ucx_written_bytes_total", "Bytes written to remote segments through UCX",
                        Metric.Type.COUNTER, written),
                new Metric("mooncake_ucx_errors_total", "UCX transfer requests that failed", Metric.Type.COUNTER, errors),
                new Metric("mooncake_ucx_endpoints", "UCX endpoints open to peers", Metric.Type.GAUGE, endpoints),
                new Metric("mooncake_ucx_connects_total", "UCX endpoints created", Metric.Type.COUNTER, connects),
                Metric.counter("mooncake_ucx_timeouts_total", "UCX transfer requests that timed out", timeouts.get()),
                Metric.gauge("mooncake_ucx_exposed_segments", "Segments this process serves through UCX", exposed));
    }
}
