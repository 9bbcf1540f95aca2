package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One run of the demo, in order: start the processes, run the matrix, the load phase and the
 * probes, then the report, the JSON and the chart; every process is stopped at the end (unless
 * --keep), on failure and on Ctrl-C.
 */
final class DemoRun {
    static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(180);
    static final Duration STOP_GRACE = Duration.ofSeconds(15);
    /** How long a case waits for counters that lag its answer (asynchronous saves) before it fails. */
    static final Duration SETTLE = Duration.ofSeconds(3);
    static final int CONCURRENCY = 2;
    /** The exit status of a run ended by Ctrl-C (128 + SIGINT), as a shell reports it. */
    static final int INTERRUPTED = 130;

    private final DemoOptions options;
    private final Path home;
    private final PrintStream out;
    private final Duration settle;
    private final DemoHttp http = new DemoHttp(REQUEST_TIMEOUT);
    private final String runId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
    private final List<String> failures = new ArrayList<>();
    private final List<CaseResult> cases = new ArrayList<>();
    private List<TransferRow> transfers = List.of();
    private DemoReport.Load load;
    private EpdCluster cluster;

    DemoRun(DemoOptions options, Path home, PrintStream out) {
        this(options, home, out, SETTLE);
    }

    DemoRun(DemoOptions options, Path home, PrintStream out, Duration settle) {
        this.options = options;
        this.home = home;
        this.out = out;
        this.settle = settle;
    }

    /** Runs everything and returns the exit status: 0 when every check passed. */
    int execute() throws IOException, InterruptedException {
        long start = System.nanoTime();
        String startedAt = Instant.now().toString();
        Path logs = options.out().resolve("logs");
        Files.createDirectories(logs);
        for (Role r : Role.values()) {
            Files.deleteIfExists(logs.resolve(r.id() + ".log")); // a previous run's, in the same --out
        }
        String javaOpts = System.getenv("MOONCAKE_DEMO_JAVA_OPTS");
        EpdCluster.Spec spec = new EpdCluster.Spec(home, logs, runId, DemoModels.modelsVar(options.model()),
                EpdCluster.roles(options.mode()), javaOpts == null || javaOpts.isBlank() ? null : javaOpts,
                START_TIMEOUT, Map.of());
        List<DemoCase> matrix = CaseMatrix.cases(options.model());
        Progress progress = new Progress(out, 1 + matrix.size() + (options.rounds() > 0 ? 1 : 0)
                + (options.mode().epd() ? 1 : 0));
        out.println("mooncake demo epd: model " + options.model().id() + ", mode " + options.mode().id() + ", run "
                + runId + ", output in " + options.out());
        Supervisor supervisor = new Supervisor(STOP_GRACE);
        supervisor.installShutdownHook();
        try {
            phases(spec, matrix, supervisor, progress);
        } catch (IOException | RuntimeException e) {
            if (supervisor.interrupted()) {
                return INTERRUPTED; // Ctrl-C: what failed since is the stopping, not the demo; no report
            }
            progress.end("FAILED");
            // a process that did not start, or died: report what ran so far
            failures.add(e instanceof ManagedProcess.StartupFailure ? e.getMessage() : "the run stopped: " + e);
        } finally {
            if (!options.keep()) {
                supervisor.close(); // and the processes' runtime folders
            }
        }
        return finish(startedAt, start, supervisor);
    }

    /** Start, matrix, load, transfers: each phase a progress line. */
    private void phases(EpdCluster.Spec spec, List<DemoCase> matrix, Supervisor supervisor, Progress progress)
            throws IOException, InterruptedException {
        progress.begin("start " + spec.roles().size() + " processes " + spec.roles().stream().map(Role::id).toList());
        cluster = EpdCluster.plan(spec);
        cluster.start(supervisor, http);
        progress.end("ok");
        Map<Role, Metrics> runStart = cluster.scrape(http);
        CaseRunner runner = new CaseRunner(cluster, http, options.mode(), settle);
        for (DemoCase c : matrix) {
            progress.begin(c.name());
            CaseResult r = runner.run(c);
            cases.add(r);
            failures.addAll(r.failures());
            progress.end(r.passed() ? "ok" : "FAILED");
        }
        if (options.rounds() > 0) {
            progress.begin("load: " + options.rounds() + (options.rounds() == 1 ? " round" : " rounds")
                    + ", concurrency " + CONCURRENCY + ", streamed");
            runLoad();
            progress.end(load.compared() == load.exact() && allOk() ? "ok" : "FAILED");
        }
        if (options.mode().epd()) {
            progress.begin("transfers: " + TransferTable.WINDOW_REQUESTS
                    + " requests one at a time, then plain store probes");
            measureTransfers(runStart);
            progress.end("ok");
        }
        for (Role r : cluster.roles()) {
            if (!cluster.alive(r)) {
                failures.add(r.description() + " exited during the run with status "
                        + cluster.process(r).process().exitValue() + " (see " + cluster.process(r).log() + ")");
            }
        }
    }

    private void measureTransfers(Map<Role, Metrics> runStart)
            throws IOException, InterruptedException {
        Map<Role, Metrics> windowStart = cluster.scrape(http);
        List<Map<Role, Metrics>> requests = new ArrayList<>();
        Map<Role, Metrics> before = windowStart;
        List<Double> requestMillis = new ArrayList<>();
        for (Prompt p : CaseMatrix.transferWindow(options.model(), TransferTable.WINDOW_REQUESTS)) {
            long sent = System.nanoTime();
            ChatAnswer a = http.chat(cluster.url(Role.PROXY), p);
            requestMillis.add((System.nanoTime() - sent) / 1e6);
            if (!a.ok()) {
                failures.add("transfers: a request of the measuring window failed: " + a.summary());
            }
            Map<Role, Metrics> after = cluster.scrape(http);
            requests.add(Endpoints.delta(before, after));
            before = after;
        }
        List<TransferRow> window = TransferTable.fromWindow(requests);
        List<TransferRow> run = TransferTable.fromRun(Endpoints.delta(runStart, windowStart));
        long gapMs = TransferTable.gapMs(Percentiles.of(requestMillis, 50));
        transfers = TransferTable.probe(TransferTable.withRun(window, run), cluster, http, gapMs);
    }

    private boolean allOk() {
        return (load.epd() == null || load.epd().ok() == load.epd().requests())
                && (load.aggregated() == null || load.aggregated().ok() == load.aggregated().requests());
    }

    private void runLoad() throws InterruptedException {
        List<Prompt> prompts = new ArrayList<>();
        for (int round = 0; round < options.rounds(); round++) {
            prompts.addAll(CaseMatrix.loadRound(options.model(), round));
        }
        LoadRun epd = options.mode().epd()
                ? LoadPhase.run("EPD", cluster.url(Role.PROXY), prompts, CONCURRENCY, http) : null;
        LoadRun aggregated = options.mode().aggregated()
                ? LoadPhase.run("aggregated", cluster.url(Role.AGGREGATED), prompts, CONCURRENCY, http) : null;
        int compared = epd != null && aggregated != null ? prompts.size() : 0;
        int exact = compared > 0 ? LoadPhase.exactMatches(epd, aggregated) : 0;
        load = new DemoReport.Load(options.rounds(), epd, aggregated, compared, exact);
        for (LoadRun run : new LoadRun[] {epd, aggregated}) {
            if (run != null && run.ok() < run.requests()) {
                ChatAnswer bad = run.answers().stream().filter(a -> !a.ok()).findFirst().orElseThrow();
                failures.add("load: " + (run.requests() - run.ok()) + " of " + run.requests() + " " + run.path()
                        + " requests failed, e.g. " + bad.summary());
            }
        }
        if (exact < compared) {
            failures.add("load: " + (compared - exact) + " of " + compared
                    + " EPD answers differ from the aggregated worker's");
        }
    }

    private int finish(String startedAt, long start, Supervisor supervisor) throws IOException {
        if (supervisor.interrupted()) {
            return INTERRUPTED;
        }
        List<DemoReport.ProcessInfo> processes = new ArrayList<>();
        if (cluster != null) {
            for (Role r : cluster.roles()) {
                ManagedProcess p = cluster.process(r);
                if (p == null) {
                    continue; // not launched: an earlier one failed to start
                }
                processes.add(new DemoReport.ProcessInfo(r.id(), cluster.instance(r), cluster.url(r), p.pid(),
                        options.out().relativize(p.log()).toString(), p.startSeconds()));
            }
        }
        DemoReport report = new DemoReport(options, MachineInfo.detect(home), startedAt,
                (System.nanoTime() - start) / 1e9, processes, cases, transfers, load, failures);
        out.print(Report.render(report));
        Path json = options.out().resolve("epd-demo.json");
        ReportJson.write(report, json);
        Path png = options.out().resolve("epd-demo.png");
        boolean chart = DemoChart.write(report, png);
        out.println("\nwrote " + json + (chart ? ", " + png : "") + "; logs in " + options.out().resolve("logs"));
        if (options.keep() && cluster != null) {
            keep(supervisor);
        }
        out.printf(java.util.Locale.ROOT, "total %.1f s%n", (System.nanoTime() - start) / 1e9);
        return failures.isEmpty() ? 0 : 1;
    }

    /** --keep: the processes stay up; say where they are and how to stop them. */
    private void keep(Supervisor supervisor) {
        supervisor.release();
        out.println("\nprocesses left running (--keep):");
        TextTable t = new TextTable("role", "url", "pid", "log");
        List<String> pids = new ArrayList<>();
        for (Role r : cluster.roles()) {
            ManagedProcess p = cluster.process(r);
            t.row(r.id(), cluster.url(r), p.pid(), p.log());
            pids.add(Long.toString(p.pid()));
        }
        out.print(t.render());
        out.println("chat: curl " + (cluster.roles().contains(Role.PROXY) ? cluster.url(Role.PROXY)
                : cluster.url(Role.AGGREGATED)) + "/v1/chat/completions -H 'Content-Type: application/json' -d '{\"model\":\""
                + DemoModels.R1 + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}'");
        out.println("stop them with: kill " + String.join(" ", pids) + " (their framework caches stay in "
                + home.resolve("runtime") + "/epd-demo-" + runId + "-*)");
    }
}
