package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

class ReportTest {
    private static DemoReport report(DemoReport.Load load, List<TransferRow> transfers, List<String> failures) {
        ChatAnswer epd = new ChatAnswer(200, "abc", "length", null, List.of("a", "b", "c"), true, 2_000_000, 9_000_000);
        ChatAnswer agg = new ChatAnswer(200, "abc", "length", null, List.of(), false, -1, 4_000_000);
        Expectation e = Evidence.eq(Role.PREFILL, Evidence.HS + "lookups_total", Map.of("outcome", "hit"), 1, "why");
        Map<Role, Metrics> deltas = Map.of(Role.PREFILL, Metrics.parse("mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"} 1\n"));
        StepResult step = new StepResult("", epd, agg, true, List.of(e.check(deltas)), deltas);
        CaseResult c = new CaseResult("one image", List.of(step), List.of(), 12.5);
        MachineInfo machine = new MachineInfo(2, "cpu", 1L << 34, "jvm", "os", null, null);
        return new DemoReport(DemoOptions.parse(List.of("--model", "tiny"), Path.of("/x")), machine, "2026-12-03T00:00:00Z",
                42.0, List.of(new DemoReport.ProcessInfo("proxy", "epd-demo-1-proxy", "http://127.0.0.1:1", 7,
                        "logs/proxy.log", 3.5)), List.of(c), transfers, load, failures);
    }

    private static TransferRow row(double plainRate) {
        TransferRow r = new TransferRow("hidden save", Role.ENCODER, "hidden_state", "put", 8, 8 << 20, 0.04, 200, null,
                "", Double.NaN);
        return plainRate > 0 ? r.withPlain(new ProbeResult.Figure(8, 8 << 20, 0.02, plainRate), "") : r;
    }

    private static DemoReport.Load load() {
        ChatAnswer a = new ChatAnswer(200, "x", "length", null, List.of("x"), true, 100_000_000, 200_000_000);
        ChatAnswer b = new ChatAnswer(200, "x", "length", null, List.of("x"), true, 50_000_000, 100_000_000);
        return new DemoReport.Load(1, new LoadRun("EPD", 2, 1.0, List.of(a, a)), new LoadRun("aggregated", 2, 0.5,
                List.of(b, b)), 2, 2);
    }

    @Test
    void theJsonHasEverySectionAndNullWhereAFigureDoesNotExist() {
        JsonNode json = ReportJson.tree(report(null, List.of(row(0)), List.of("case 'x': counter")));
        for (String field : List.of("version", "started", "seconds", "passed", "options", "machine", "processes", "summary",
                "cases", "transfers", "load", "failures")) {
            assertTrue(json.has(field), field);
        }
        assertFalse(json.path("passed").asBoolean(), "a failure fails the run");
        assertEquals("tiny", json.path("options").path("model").asText());
        assertEquals(2, json.path("machine").path("cores").asInt());
        assertTrue(json.path("machine").path("git_commit").isNull());
        assertEquals(1, json.path("summary").path("exact").asInt());
        JsonNode step = json.path("cases").path(0).path("steps").path(0);
        assertEquals("abc", step.path("epd").path("content").asText());
        assertEquals(3, step.path("epd").path("chunks").asInt());
        assertEquals(2.0, step.path("epd").path("first_content_millis").asDouble());
        assertTrue(step.path("aggregated").path("first_content_millis").isNull(), "not streamed");
        assertEquals("prefill", step.path("evidence").path(0).path("role").asText());
        assertEquals("mooncake_epd_hidden_state_lookups_total{outcome=\"hit\"}",
                step.path("evidence").path(0).path("counter").asText());
        assertTrue(step.path("evidence").path(0).path("ok").asBoolean());
        JsonNode t = json.path("transfers").path(0);
        assertTrue(t.path("plain").isNull());
        assertTrue(t.path("ratio").isNull(), "NaN is written as null");
        assertTrue(t.path("run_mib_per_s").isNull());
        assertEquals("n/a", t.path("verdict").asText());
        assertTrue(json.path("load").isNull());
    }

    @Test
    void theTextReportShowsCasesTransfersLoadAndFailures() {
        String text = Report.render(report(load(), List.of(row(250)), List.of("case 'x': counter")));
        assertTrue(text.contains("1/1 cases passed, 1/1 EPD answers equal to the aggregated worker's"), text);
        assertTrue(text.matches("(?s).*one image +ok +yes .*"), text);
        assertTrue(text.matches("(?s).*hidden save +encoder +8 +8\\.00 +0\\.040 +200\\.0 +250\\.0 +0\\.80 +PASS +n/a.*"), text);
        assertTrue(text.matches("(?s).*EPD +2 +2 +1\\.0 +2\\.00 +100 +100 +200 +200.*"), text);
        assertTrue(text.contains("EPD against aggregated: throughput x0.50 (cost), TTFT p50 +100% (slower)"), text);
        assertTrue(text.contains("load answers equal: 2/2"), text);
        assertTrue(text.endsWith("FAILED (1):\n  - case 'x': counter\n"), text);
    }

    @Test
    void theChartHasAPanelPerKindOfFigureAndNoneWithoutFigures(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("c.png");
        assertTrue(DemoChart.write(report(load(), List.of(row(250)), List.of()), png));
        assertEquals(1280, javax.imageio.ImageIO.read(png.toFile()).getWidth());
        assertTrue(DemoChart.write(report(load(), List.of(row(0)), List.of()), png), "latency only");
        assertEquals(640, javax.imageio.ImageIO.read(png.toFile()).getWidth());
        assertFalse(DemoChart.write(report(null, List.of(), List.of()), dir.resolve("none.png")));
        assertFalse(dir.resolve("none.png").toFile().exists());
    }
}
