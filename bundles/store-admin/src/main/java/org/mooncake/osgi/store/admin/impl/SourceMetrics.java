package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/**
 * Renders the {@link MetricSource} services of a process after the store's own figures, in the
 * Prometheus text format. Prometheus refuses a whole scrape over one duplicate, so: a family
 * several sources publish is written once (one HELP and TYPE, the samples of all), a family whose
 * name the store's figures or an earlier family of another type already use is left out, and a
 * sample that repeats a series already written is dropped; each such case is logged. A source
 * that throws is left out whole, logged once until it answers again.
 */
final class SourceMetrics {
    private static final System.Logger LOG = System.getLogger(SourceMetrics.class.getName());

    private final Set<MetricSource> failing = ConcurrentHashMap.newKeySet();

    /** One family as written: the first source's help and type, the samples of all. */
    private record Family(String help, Metric.Type type, List<Metric.Sample> samples, Set<String> series) {
    }

    /**
     * Appends every source's metrics to {@code out}, which already holds the families named in
     * {@code taken} (read once per scrape, in the order given).
     */
    void render(StringBuilder out, Set<String> taken, List<MetricSource> sources) {
        Map<String, Family> families = new LinkedHashMap<>();
        for (MetricSource source : sources) {
            List<Metric> metrics = read(source);
            for (Metric m : metrics) {
                add(families, taken, source, m);
            }
        }
        families.forEach((name, f) -> {
            PrometheusFormat.header(out, name, f.type().name().toLowerCase(Locale.ROOT), f.help());
            for (Metric.Sample s : f.samples()) {
                out.append(name).append(s.suffix()).append(labels(s.labels())).append(' ')
                        .append(PrometheusFormat.number(s.value())).append('\n');
            }
        });
    }

    /** The source's metrics, whole, or none if it throws or answers with a null. */
    private List<Metric> read(MetricSource source) {
        try {
            List<Metric> metrics = List.copyOf(source.metrics()); // a null list or element throws here
            failing.remove(source);
            return metrics;
        } catch (RuntimeException e) {
            if (failing.add(source)) {
                LOG.log(Level.WARNING, "metric source " + source.getClass().getName()
                        + " failed; its metrics are left out of /metrics until it answers", e);
            }
            return List.of();
        }
    }

    private static void add(Map<String, Family> families, Set<String> taken, MetricSource source, Metric m) {
        if (taken.contains(m.name())) {
            LOG.log(Level.WARNING, "metric " + m.name() + " of " + source.getClass().getName()
                    + " left out: the store's own figures use that name");
            return;
        }
        Family f = families.computeIfAbsent(m.name(), n -> new Family(m.help(), m.type(), new ArrayList<>(), new HashSet<>()));
        if (f.type() != m.type()) {
            LOG.log(Level.WARNING, "metric " + m.name() + " of " + source.getClass().getName() + " left out: it is a "
                    + m.type() + " where another source published a " + f.type());
            return;
        }
        for (Metric.Sample s : m.samples()) {
            String series = s.suffix() + labels(s.labels());
            if (f.series().add(series)) {
                f.samples().add(s);
            } else {
                LOG.log(Level.WARNING, "metric " + m.name() + series + " of " + source.getClass().getName()
                        + " left out: another sample already has these labels");
            }
        }
    }

    /** {@code {a="x",b="y"}} with names in order, values escaped; nothing without labels. */
    private static String labels(Map<String, String> labels) {
        if (labels.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("{");
        new TreeMap<>(labels).forEach((k, v) -> {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append(k).append("=\"").append(PrometheusFormat.escape(v)).append('"');
        });
        return b.append('}').toString();
    }

    /** The family names in a rendered exposition (its TYPE lines): what sources must not reuse. */
    static Set<String> familiesIn(String exposition) {
        Set<String> names = new HashSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.substring(7, line.indexOf(' ', 7)));
            }
        }
        return names;
    }
}
