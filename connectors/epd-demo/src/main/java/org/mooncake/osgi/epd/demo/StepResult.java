package org.mooncake.osgi.epd.demo;

import java.util.List;
import java.util.Map;

/**
 * One request of a case: the EPD and aggregated answers (null for a path not run), whether they
 * are equal (null when not compared), each expectation's outcome and every process's counter
 * deltas during the EPD request.
 */
public record StepResult(String label, ChatAnswer epd, ChatAnswer aggregated, Boolean exact,
        List<Expectation.Outcome> evidence, Map<Role, Metrics> deltas) {

    public StepResult {
        evidence = List.copyOf(evidence);
        deltas = Map.copyOf(deltas);
    }

    /** A delta for the report: the sum of a counter's series that match the labels, on one process. */
    public double delta(Role role, String metric, String... labels) {
        return deltas.getOrDefault(role, Metrics.empty()).sum(metric, labels);
    }
}
