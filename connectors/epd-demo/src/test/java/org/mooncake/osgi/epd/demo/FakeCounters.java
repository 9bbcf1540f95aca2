package org.mooncake.osgi.epd.demo;

import java.util.Map;
import java.util.TreeMap;

/** Counters a fake process exposes on /metrics, in Prometheus text. */
final class FakeCounters {
    private final Map<String, Double> series = new TreeMap<>();

    /** Adds {@code by} to {@code name{labels}}; labels as {@code k="v",...} text, or empty. */
    synchronized void add(String name, String labels, double by) {
        series.merge(labels.isEmpty() ? name : name + "{" + labels + "}", by, Double::sum);
    }

    synchronized String render() {
        StringBuilder b = new StringBuilder("# HELP fake_up a fake process\n# TYPE fake_up gauge\nfake_up 1\n");
        series.forEach((k, v) -> b.append(k).append(' ').append(v).append('\n'));
        return b.toString();
    }
}
