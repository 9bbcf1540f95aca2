package org.mooncake.osgi.epd.demo;

import java.util.List;

/** One path's load phase: every answer in request order and the wall time of the whole. */
public record LoadRun(String path, int concurrency, double seconds, List<ChatAnswer> answers) {
    public LoadRun {
        answers = List.copyOf(answers);
    }

    public int requests() {
        return answers.size();
    }

    public int ok() {
        return (int) answers.stream().filter(ChatAnswer::ok).count();
    }

    /** Answered requests per second of wall time. */
    public double requestsPerSecond() {
        return seconds > 0 ? ok() / seconds : Double.NaN;
    }

    public double ttftMillis(double percentile) {
        return Percentiles.of(answers.stream().filter(ChatAnswer::ok).map(ChatAnswer::firstContentMillis).toList(),
                percentile);
    }

    public double latencyMillis(double percentile) {
        return Percentiles.of(answers.stream().filter(ChatAnswer::ok).map(ChatAnswer::totalMillis).toList(), percentile);
    }
}
