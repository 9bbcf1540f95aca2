package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a case, one step at a time: every process's counters are scraped before and after the
 * EPD request (through the proxy), whose answer is then compared with the aggregated worker's
 * for the same request. The connectors save asynchronously, so a counter may move a moment after
 * the answer: the scrape after is repeated for up to {@code settle} until every expectation holds.
 */
public final class CaseRunner {
    private final Endpoints cluster;
    private final DemoHttp http;
    private final DemoOptions.Mode mode;
    private final Duration settle;

    public CaseRunner(Endpoints cluster, DemoHttp http, DemoOptions.Mode mode, Duration settle) {
        this.cluster = cluster;
        this.http = http;
        this.mode = mode;
        this.settle = settle;
    }

    public CaseResult run(DemoCase c) throws IOException, InterruptedException {
        long start = System.nanoTime();
        List<StepResult> steps = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (DemoCase.Step step : c.steps()) {
            String where = "case '" + c.name() + "'" + (step.label().isEmpty() ? "" : " (" + step.label() + ")") + ": ";
            StepResult r = runStep(step);
            steps.add(r);
            if (r.epd() != null && !r.epd().ok()) {
                failures.add(where + "the EPD request failed: " + r.epd().summary());
            }
            if (r.aggregated() != null && !r.aggregated().ok()) {
                failures.add(where + "the aggregated request failed: " + r.aggregated().summary());
            }
            if (Boolean.FALSE.equals(r.exact()) && r.epd().ok() && r.aggregated().ok()) {
                failures.add(where + "the EPD answer differs from the aggregated worker's: EPD " + r.epd().summary()
                        + " vs aggregated " + r.aggregated().summary());
            }
            for (ChatAnswer a : new ChatAnswer[] {r.epd(), r.aggregated()}) {
                if (step.stream() && a != null && a.ok() && a.content().length() > 1 && a.chunks().size() < 2) {
                    failures.add(where + "the streamed answer came in " + a.chunks().size()
                            + " chunk, not relayed chunk by chunk");
                }
            }
            for (Expectation.Outcome o : r.evidence()) {
                if (!o.ok()) {
                    failures.add(where + o.message());
                }
            }
        }
        if (c.answersDiffer()) {
            differ(c, steps, failures);
        }
        return new CaseResult(c.name(), steps, failures, (System.nanoTime() - start) / 1e6);
    }

    private StepResult runStep(DemoCase.Step step) throws IOException, InterruptedException {
        ChatAnswer epd = null;
        List<Expectation.Outcome> outcomes = List.of();
        Map<Role, Metrics> deltas = Map.of();
        if (mode.epd()) {
            Map<Role, Metrics> before = cluster.scrape(http);
            epd = ask(cluster.url(Role.PROXY), step);
            long deadline = System.nanoTime() + settle.toNanos();
            while (true) {
                deltas = Endpoints.delta(before, cluster.scrape(http));
                outcomes = check(step.evidence(), deltas);
                if (!epd.ok() || outcomes.stream().allMatch(Expectation.Outcome::ok) || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(50); // an asynchronous save is counted within milliseconds of the answer
            }
        }
        ChatAnswer aggregated = mode.aggregated() ? ask(cluster.url(Role.AGGREGATED), step) : null;
        Boolean exact = epd != null && aggregated != null ? epd.sameAs(aggregated) : null;
        return new StepResult(step.label(), epd, aggregated, exact, outcomes, deltas);
    }

    private ChatAnswer ask(String base, DemoCase.Step step) throws InterruptedException {
        return step.stream() ? http.stream(base, step.prompt(), chunk -> { }) : http.chat(base, step.prompt());
    }

    private static List<Expectation.Outcome> check(List<Expectation> evidence, Map<Role, Metrics> deltas) {
        return evidence.stream().map(e -> e.check(deltas)).toList();
    }

    /** Each path's answers of the steps must differ pairwise (two revisions must not answer alike). */
    private static void differ(DemoCase c, List<StepResult> steps, List<String> failures) {
        for (int i = 0; i < steps.size(); i++) {
            for (int j = i + 1; j < steps.size(); j++) {
                for (boolean epdPath : new boolean[] {true, false}) {
                    ChatAnswer a = epdPath ? steps.get(i).epd() : steps.get(i).aggregated();
                    ChatAnswer b = epdPath ? steps.get(j).epd() : steps.get(j).aggregated();
                    if (a != null && b != null && a.ok() && b.ok() && a.content().equals(b.content())) {
                        failures.add("case '" + c.name() + "': " + steps.get(i).label() + " and " + steps.get(j).label()
                                + " gave the same " + (epdPath ? "EPD" : "aggregated") + " answer " + a.summary()
                                + ": the revisions' weights should differ");
                    }
                }
            }
        }
    }
}
