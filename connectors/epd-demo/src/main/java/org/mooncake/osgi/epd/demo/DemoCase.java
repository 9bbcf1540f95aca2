package org.mooncake.osgi.epd.demo;

import java.util.List;

/**
 * A case of the matrix: one or more requests ({@link Step}s) asked through the EPD proxy and of
 * the aggregated worker, each with the counters its EPD run must move. With {@code answersDiffer}
 * the steps' answers must differ from each other (two model revisions).
 */
public record DemoCase(String name, List<Step> steps, boolean answersDiffer) {

    public record Step(String label, Prompt prompt, boolean stream, List<Expectation> evidence) {
        public Step {
            evidence = List.copyOf(evidence);
        }
    }

    public DemoCase {
        steps = List.copyOf(steps);
    }

    public static DemoCase of(String name, Step step) {
        return new DemoCase(name, List.of(step), false);
    }
}
