package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** The whole demo against a fake distribution: seven processes, the matrix, load, probes, report, stop. */
class DemoRunTest {
    private static String run(DemoOptions options, Path home, int expectedStatus) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = new DemoRun(options, home, new PrintStream(out, true, StandardCharsets.UTF_8), Duration.ofMillis(200))
                .execute();
        String said = out.toString(StandardCharsets.UTF_8);
        assertEquals(expectedStatus, status, said);
        return said;
    }

    private static DemoOptions options(Path out, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--out", out.toString(), "--model", "tiny"));
        args.addAll(List.of(more));
        return DemoOptions.parse(args, Path.of("/"));
    }

    private static List<Long> pids(JsonNode report) {
        return java.util.stream.StreamSupport.stream(report.path("processes").spliterator(), false)
                .map(p -> p.path("pid").asLong()).toList();
    }

    @Test
    void aCorrectClusterPassesWritesTheReportJsonAndChartAndStopsEverything(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "");
        Path out = dir.resolve("out");
        String said = run(options(out, "--rounds", "1"), home, 0);
        assertTrue(said.contains("[1/10] start 7 processes [master, storage, encoder, prefill, decode, aggregated, proxy]"
                + " ... ok"), said);
        assertTrue(said.contains("[6/10] streaming ... ok"), said);
        assertTrue(said.contains("[9/10] load: 1 round, concurrency 2, streamed ... ok"), said);
        assertTrue(said.contains("[10/10] transfers: 12 requests one at a time, then plain store probes ... ok"), said);
        assertTrue(said.contains("7/7 cases passed, 8/8 EPD answers equal to the aggregated worker's"), said);
        assertTrue(said.contains("load answers equal: 6/6"), said);
        assertTrue(said.matches("(?s).*hidden save +encoder +\\d+ .* 0\\.76 +PASS.*"), said);
        assertFalse(said.contains("FAILED"), said);

        JsonNode json = FakeAnswers.JSON.readTree(out.resolve("epd-demo.json").toFile());
        assertEquals(ReportJson.VERSION, json.path("version").asInt());
        assertTrue(json.path("passed").asBoolean());
        assertEquals(7, json.path("summary").path("passed").asInt());
        assertEquals(8, json.path("summary").path("exact").asInt());
        assertEquals(7, json.path("processes").size());
        assertEquals(4, json.path("transfers").size());
        assertEquals(6, json.path("load").path("epd").path("requests").asInt());
        assertTrue(json.path("machine").path("cores").asInt() > 0);
        BufferedImage chart = ImageIO.read(out.resolve("epd-demo.png").toFile());
        assertEquals(1280, chart.getWidth(), "two panels: transfers and latency");
        for (Role r : Role.values()) {
            assertTrue(Files.readString(out.resolve("logs/" + r.id() + ".log")).contains("fake " + r.profile()), r.id());
        }
        for (long pid : pids(json)) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " stopped");
        }
        try (Stream<Path> left = Files.list(home.resolve("runtime"))) {
            assertEquals(List.of(), left.toList(), "the run's framework caches are deleted");
        }
        assertTrue(Files.readString(out.resolve("logs/aggregated.log")).contains("models="),
                "the aggregated profile got its variables");
        assertFalse(Files.readString(out.resolve("logs/aggregated.log")).contains("master="),
                "and not the master, which its profile does not take");
    }

    @Test
    void aProcessThatDoesNotStartFailsTheRunNamingItWithItsLogAndStopsTheRest(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "encoder-exit");
        Path out = dir.resolve("out");
        String said = run(options(out), home, 1);
        assertTrue(said.contains("[1/10] start 7 processes"), said);
        assertTrue(said.matches("(?s).*encoder \\(pid \\d+\\) exited with status 3 before it was healthy; last lines of "
                + ".*encoder.log:\n.*fake epd-encoder: no model to serve.*"), said);
        JsonNode json = FakeAnswers.JSON.readTree(out.resolve("epd-demo.json").toFile());
        assertFalse(json.path("passed").asBoolean());
        assertEquals(0, json.path("cases").size());
        assertEquals(7, pids(json).size(), "every process launched is listed");
        for (long pid : pids(json)) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " stopped");
        }
    }

    @Test
    void aFailedCounterFailsTheRunAfterTheWholeReport(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "no-prefill-hit");
        Path out = dir.resolve("out");
        String said = run(options(out, "--rounds", "0", "--mode", "epd"), home, 1);
        assertTrue(said.contains("[3/9] one image ... FAILED"), said);
        assertTrue(said.contains("FAILED (7):\n  - case 'one image': prefill mooncake_epd_hidden_state_lookups_total"
                + "{outcome=\"hit\"} expected == 1, actual 0"), said);
        assertTrue(said.contains("Transfers: each connector during 12 requests"), "the report is whole: " + said);
        assertTrue(Files.exists(out.resolve("epd-demo.json")));
    }

    @Test
    void aProcessThatDiesDuringTheRunFailsItWithAReportNotAStackTrace(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "prefill-exit");
        Path out = dir.resolve("out");
        String said = run(options(out, "--rounds", "0", "--mode", "epd"), home, 1);
        assertTrue(said.contains("the prefill worker exited during the run with status 7")
                || said.contains("the run stopped: "), said);
        assertTrue(said.contains("FAILED ("), said);
        assertFalse(said.contains("\tat org.mooncake"), said);
        assertTrue(Files.exists(out.resolve("epd-demo.json")));
        try (Stream<Path> left = Files.list(home.resolve("runtime"))) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void keepLeavesTheProcessesRunningAndSaysHowToStopThem(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "");
        Path out = dir.resolve("out");
        String said = run(options(out, "--rounds", "0", "--mode", "aggregated", "--keep"), home, 0);
        JsonNode json = FakeAnswers.JSON.readTree(out.resolve("epd-demo.json").toFile());
        List<Long> pids = pids(json);
        try {
            assertEquals(1, pids.size(), "the aggregated worker alone");
            for (long pid : pids) {
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), said);
            }
            assertTrue(said.contains("processes left running (--keep):"), said);
            assertTrue(said.contains("stop them with: kill " + pids.get(0) + " (their framework caches"
                    + " stay in " + home.resolve("runtime") + "/epd-demo-"), said);
            assertTrue(said.contains(json.path("processes").path(0).path("url").asText() + "/v1/chat/completions"), said);
        } finally {
            pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
        }
    }
}
