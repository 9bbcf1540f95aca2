package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code epd-demo.json}: the whole run, machine and options included. Numbers that do not exist
 * (a rate with no transfer) are {@code null}, never NaN, so any JSON reader takes the file.
 */
public final class ReportJson {
    /** Bumped when a field changes meaning or goes away. */
    public static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportJson() {
    }

    public static void write(DemoReport r, Path file) throws IOException {
        JSON.writeValue(file.toFile(), tree(r));
    }

    public static ObjectNode tree(DemoReport r) {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        root.put("started", r.startedAt());
        num(root, "seconds", r.seconds());
        root.put("passed", r.failures().isEmpty());
        ObjectNode options = root.putObject("options");
        options.put("model", r.options().model().id()).put("mode", r.options().mode().id())
                .put("rounds", r.options().rounds()).put("keep", r.options().keep())
                .put("out", r.options().out().toString());
        MachineInfo m = r.machine();
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", m.cores()).put("cpu", m.cpu()).put("memory_bytes", m.memoryBytes()).put("jvm", m.jvm())
                .put("os", m.os()).put("git_commit", m.gitCommit());
        if (m.gitDirty() == null) {
            machine.putNull("git_dirty");
        } else {
            machine.put("git_dirty", m.gitDirty());
        }
        ArrayNode processes = root.putArray("processes");
        for (DemoReport.ProcessInfo p : r.processes()) {
            ObjectNode n = processes.addObject().put("role", p.role()).put("instance", p.instance()).put("url", p.url())
                    .put("pid", p.pid()).put("log", p.log());
            num(n, "start_seconds", p.startSeconds());
        }
        ObjectNode summary = root.putObject("summary");
        summary.put("cases", r.cases().size()).put("passed", r.passed()).put("compared", r.compared())
                .put("exact", r.exact());
        ArrayNode cases = root.putArray("cases");
        r.cases().forEach(c -> caseNode(cases.addObject(), c));
        ArrayNode transfers = root.putArray("transfers");
        r.transfers().forEach(t -> transferNode(transfers.addObject(), t));
        if (r.load() == null) {
            root.putNull("load");
        } else {
            loadNode(root.putObject("load"), r.load());
        }
        ArrayNode failures = root.putArray("failures");
        r.failures().forEach(failures::add);
        return root;
    }

    private static void caseNode(ObjectNode n, CaseResult c) {
        n.put("name", c.name()).put("passed", c.passed());
        num(n, "millis", c.millis());
        ArrayNode steps = n.putArray("steps");
        for (StepResult s : c.steps()) {
            ObjectNode step = steps.addObject().put("label", s.label());
            if (s.exact() == null) {
                step.putNull("exact");
            } else {
                step.put("exact", s.exact());
            }
            answer(step, "epd", s.epd());
            answer(step, "aggregated", s.aggregated());
            ArrayNode evidence = step.putArray("evidence");
            for (Expectation.Outcome o : s.evidence()) {
                ObjectNode e = evidence.addObject().put("role", o.expected().role().id())
                        .put("counter", o.expected().series()).put("op", o.expected().op().symbol());
                num(e, "expected", o.expected().value());
                num(e, "actual", o.actual());
                e.put("ok", o.ok()).put("why", o.expected().why());
            }
            num(step, "store_bytes", Report.storeBytes(s));
        }
        ArrayNode failures = n.putArray("failures");
        c.failures().forEach(failures::add);
    }

    private static void answer(ObjectNode parent, String field, ChatAnswer a) {
        if (a == null) {
            parent.putNull(field);
            return;
        }
        ObjectNode n = parent.putObject(field).put("status", a.status()).put("content", a.content())
                .put("finish_reason", a.finishReason()).put("error", a.error()).put("chunks", a.chunks().size());
        num(n, "millis", a.totalMillis());
        num(n, "first_content_millis", a.firstContentNanos() >= 0 ? a.firstContentMillis() : Double.NaN);
    }

    private static void transferNode(ObjectNode n, TransferRow t) {
        n.put("transfer", t.name()).put("worker", t.worker().id()).put("connector", t.connector()).put("op", t.op())
                .put("objects", t.objects());
        num(n, "bytes", t.bytes());
        num(n, "seconds", t.seconds());
        num(n, "mib_per_s", t.mibPerS());
        if (t.plain() == null) {
            n.putNull("plain");
        } else {
            ObjectNode p = n.putObject("plain").put("objects", t.plain().objects()).put("bytes", t.plain().bytes());
            num(p, "seconds", t.plain().seconds());
            num(p, "mib_per_s", t.plain().mibPerS());
        }
        num(n, "ratio", t.ratio());
        n.put("goal", TransferRow.GOAL).put("verdict", t.verdict()).put("note", t.note());
        n.put("window_requests", TransferTable.WINDOW_REQUESTS);
        num(n, "run_mib_per_s", t.runMibPerS());
    }

    private static void loadNode(ObjectNode n, DemoReport.Load l) {
        n.put("rounds", l.rounds()).put("compared", l.compared()).put("exact", l.exact());
        run(n, "epd", l.epd());
        run(n, "aggregated", l.aggregated());
    }

    private static void run(ObjectNode parent, String field, LoadRun run) {
        if (run == null) {
            parent.putNull(field);
            return;
        }
        ObjectNode n = parent.putObject(field).put("requests", run.requests()).put("ok", run.ok())
                .put("concurrency", run.concurrency());
        num(n, "seconds", run.seconds());
        num(n, "requests_per_second", run.requestsPerSecond());
        ObjectNode ttft = n.putObject("ttft_ms");
        num(ttft, "p50", run.ttftMillis(50));
        num(ttft, "p95", run.ttftMillis(95));
        ObjectNode latency = n.putObject("latency_ms");
        num(latency, "p50", run.latencyMillis(50));
        num(latency, "p95", run.latencyMillis(95));
    }

    /** A count stays an integer in the file ({@code 1}, not {@code 1.0}); what does not exist is null. */
    private static void num(ObjectNode n, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            n.putNull(field);
        } else if (v == Math.rint(v) && Math.abs(v) < 1L << 53) {
            n.put(field, (long) v);
        } else {
            n.put(field, v);
        }
    }
}
