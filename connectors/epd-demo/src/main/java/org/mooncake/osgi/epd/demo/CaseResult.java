package org.mooncake.osgi.epd.demo;

import java.util.List;

/** A case's steps and every failure found (empty: passed), each naming the case, the step and the counter. */
public record CaseResult(String name, List<StepResult> steps, List<String> failures, double millis) {
    public CaseResult {
        steps = List.copyOf(steps);
        failures = List.copyOf(failures);
    }

    public boolean passed() {
        return failures.isEmpty();
    }

    /** Steps whose EPD answer was compared with the aggregated one, and how many were equal. */
    public int compared() {
        return (int) steps.stream().filter(s -> s.exact() != null).count();
    }

    public int exact() {
        return (int) steps.stream().filter(s -> Boolean.TRUE.equals(s.exact())).count();
    }
}
