package org.mooncake.osgi.epd.demo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One scrape of a Prometheus text endpoint: every sample by name and labels. The demo only ever
 * reads counters and summaries' {@code _sum}/{@code _count}, so a sample is a name, a label set
 * and a number; timestamps are dropped. A sample that is absent counts as 0, because a counter
 * may appear only with its first event.
 */
public final class Metrics {
    /** A sample's identity; labels sorted so that two scrapes of one series are equal. */
    public record Series(String name, Map<String, String> labels) {
        public Series {
            labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        }

        @Override
        public String toString() {
            if (labels.isEmpty()) {
                return name;
            }
            StringBuilder b = new StringBuilder(name).append('{');
            labels.forEach((k, v) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ",").append(k).append("=\"")
                    .append(v).append('"'));
            return b.append('}').toString();
        }
    }

    private static final Metrics EMPTY = new Metrics(Map.of());
    private final Map<Series, Double> samples;

    private Metrics(Map<Series, Double> samples) {
        this.samples = Collections.unmodifiableMap(samples);
    }

    public static Metrics empty() {
        return EMPTY;
    }

    /**
     * Parses the text exposition format: comment lines are skipped, label values may hold
     * escaped quotes, backslashes and newlines, values may be {@code NaN} or {@code ±Inf}.
     *
     * @throws IllegalArgumentException naming the line that is not a sample
     */
    public static Metrics parse(String text) {
        Map<Series, Double> samples = new LinkedHashMap<>();
        int lineNo = 0;
        for (String raw : text.split("\n")) {
            lineNo++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                parseLine(line, samples);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("metrics line " + lineNo + " is not a sample (" + e.getMessage()
                        + "): " + line, e);
            }
        }
        return new Metrics(samples);
    }

    private static void parseLine(String line, Map<Series, Double> samples) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && !Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        String name = line.substring(0, i);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("no metric name");
        }
        Map<String, String> labels = new TreeMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i = parseLabels(line, i + 1, labels);
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length == 0 || rest[0].isEmpty()) {
            throw new IllegalArgumentException("no value");
        }
        samples.put(new Series(name, labels), value(rest[0]));
    }

    /** Reads {@code a="x",b="y"}} from {@code i}; returns the index after the closing brace. */
    private static int parseLabels(String line, int i, Map<String, String> labels) {
        while (true) {
            while (i < line.length() && (line.charAt(i) == ',' || line.charAt(i) == ' ')) {
                i++;
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("labels not closed");
            }
            if (line.charAt(i) == '}') {
                return i + 1;
            }
            int eq = line.indexOf('=', i);
            if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                throw new IllegalArgumentException("label without =\"value\"");
            }
            String key = line.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            for (; j < line.length() && line.charAt(j) != '"'; j++) {
                char c = line.charAt(j);
                if (c == '\\' && j + 1 < line.length()) {
                    char next = line.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            if (j >= line.length()) {
                throw new IllegalArgumentException("label value not closed");
            }
            labels.put(key, value.toString());
            i = j + 1;
        }
    }

    private static double value(String s) {
        return switch (s) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }

    public Map<Series, Double> samples() {
        return samples;
    }

    /**
     * What changed since {@code before}: each series of this scrape less its earlier value (0 if
     * it was absent). A series only in {@code before} is kept with its value negated, so that a
     * counter that went backwards (a restarted process) shows as such instead of vanishing.
     */
    public Metrics minus(Metrics before) {
        Map<Series, Double> delta = new LinkedHashMap<>();
        samples.forEach((s, v) -> delta.put(s, v - before.samples.getOrDefault(s, 0.0)));
        before.samples.forEach((s, v) -> delta.putIfAbsent(s, -v));
        return new Metrics(delta);
    }

    /** Adds up the series of {@code name} whose labels include every {@code key, value} pair given. */
    public double sum(String name, Map<String, String> match) {
        double total = 0;
        for (var e : samples.entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().labels().entrySet().containsAll(match.entrySet())) {
                total += e.getValue();
            }
        }
        return total;
    }

    /** {@link #sum(String, Map)} with labels as alternating key, value. */
    public double sum(String name, String... keyValues) {
        return sum(name, labels(keyValues));
    }

    static Map<String, String> labels(String... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("labels come as key, value pairs");
        }
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
