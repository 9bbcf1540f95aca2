package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransferBenchmarkTest {
    /** memcpy's baseline and the store's copies compare alike only if no buffer's alignment differs by run. */
    @Test
    void everyBufferStartsOnAPageWhateverWasAllocatedBefore() {
        try (Arena arena = Arena.ofConfined()) {
            for (long size : new long[] {1, 64, 65_536, 65_600, 1 << 20}) {
                assertEquals(0, TransferBenchmark.buffer(arena, size).address() % 4096, "size " + size);
            }
        }
    }

    /** Redis 7's CSV, as redis-benchmark printed it on this VM: each figure from its own column. */
    @Test
    void redisFiguresAreReadFromTheColumnsTheHeaderNames() {
        String csv = """
                "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                "SET","17241.38","0.049","0.040","0.047","0.087","0.135","0.719"
                "GET","16000.00","0.052","0.041","0.050","0.090","0.140","0.800"
                """;
        List<TransferBenchmark.Result> r = TransferSystems.redisResults(csv, 65_536, 2000);
        assertEquals(2, r.size());
        assertEquals("put", r.get(0).op());
        assertEquals(17241.38 * 65_536 / (1 << 20), r.get(0).mibPerSecond(), 1e-6);
        assertEquals(0.047, r.get(0).p50Ms());
        assertEquals(0.135, r.get(0).p99Ms());
        assertEquals("get", r.get(1).op());
        assertEquals(0.140, r.get(1).p99Ms());
    }

    /** The table and charts show each series' median over the rounds; its operations are the rounds' sum. */
    @Test
    void mediansAreTakenPerSeriesOverTheRounds() {
        List<List<TransferBenchmark.Result>> rounds = List.of(
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 2_000, 0.40, 0.9),
                        new TransferBenchmark.Result("tcp", "get", 1 << 20, 1000, 3_000, 0.30, 0.5)),
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 1_000, 0.80, 1.5),
                        new TransferBenchmark.Result("tcp", "get", 1 << 20, 1000, 3_300, 0.28, 0.4)),
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 2_500, 0.35, 0.7)));
        List<TransferBenchmark.Result> m = TransferBenchmark.medians(rounds);

        assertEquals(new TransferBenchmark.Result("tcp", "put", 1 << 20, 3000, 2_000, 0.40, 0.9), m.get(0));
        TransferBenchmark.Result get = m.get(1);
        assertEquals(List.of("tcp", "get", 1L << 20, 2000), List.of(get.system(), get.op(), get.size(), get.ops()));
        assertEquals(3_150, get.mibPerSecond(), 1e-9);
        assertEquals(0.29, get.p50Ms(), 1e-9);
        assertEquals(0.45, get.p99Ms(), 1e-9);
        assertEquals(2, m.size());
    }

    private static String mistake(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(BenchArgs.Mistake.class, e).getMessage();
    }

    /** Every switch, and the defaults where none is given. */
    @Test
    void everySwitchIsRead(@TempDir Path dir) {
        String out = dir.resolve("o").toString();
        TransferBenchmark d = TransferBenchmark.parse(new String[] {out});
        assertEquals(3, d.roundCount());
        assertEquals(1.0, d.scale());
        assertArrayEquals(TransferBenchmark.SIZES, d.sizes());
        assertEquals(TransferSystems.known().stream().map(TransferSystem::name).toList(), d.systemNames());
        assertEquals(dir.resolve("o"), d.out());

        TransferBenchmark b = TransferBenchmark.parse(new String[] {"--systems", "tcp,memcpy", "--sizes",
                "1MiB,4KiB,64KiB,16MiB,32062464", "--rounds", "5", "--scale", "0.5", "--warmup", "0", "--out", out});
        assertEquals(List.of("memcpy", "tcp"), b.systemNames());
        assertArrayEquals(new long[] {4096, 65_536, 1 << 20, 16 << 20, 32_062_464}, b.sizes());
        assertEquals(5, b.roundCount());
        assertEquals(0.5, b.scale());
        assertEquals(0.0, b.warmUpSeconds());
        assertEquals(dir.resolve("o"), b.out());
        // OUT_DIR as the first plain argument, switches before or after it
        assertEquals(dir.resolve("o"), TransferBenchmark.parse(new String[] {"--rounds", "2", out}).out());
    }

    /** The old form, OUT_DIR SCALE ROUNDS, still works; a value given both ways is refused. */
    @Test
    void theOldPlainArgumentsStillWork(@TempDir Path dir) {
        String out = dir.toString();
        TransferBenchmark b = TransferBenchmark.parse(new String[] {out, "0.5", "5"});
        assertEquals(5, b.roundCount());
        assertEquals(0.5, b.scale());
        assertEquals("ROUNDS takes a whole number from 1 to 20, was 0",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "1", "0"})));
        assertEquals("takes at most three plain arguments, [OUT_DIR] [SCALE] [ROUNDS], was given 4: " + out + " 1 3 x "
                + "(the options are --systems, --sizes, --rounds, --scale, --warmup, --out, --help)",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "1", "3", "x"})));
        assertEquals("ROUNDS given twice: as plain argument 3 (4) and as --rounds 2",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "1", "4", "--rounds", "2"})));
        assertEquals("OUT_DIR given twice: as plain argument 1 (" + out + ") and as --out " + out,
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--out", out})));
    }

    /** Each bad value is refused with a message that names the switch and what it takes. */
    @Test
    void badValuesAreRefusedWithWhatIsValid(@TempDir Path dir) {
        String out = dir.toString();
        assertEquals("unknown option --system; it takes [OUT_DIR] and --systems, --sizes, --rounds, --scale, --warmup, "
                + "--out, --help", mistake(() -> TransferBenchmark.parse(new String[] {out, "--system", "tcp"})));
        assertTrue(mistake(() -> TransferBenchmark.parse(new String[] {out, "--systems", "tcp,rdma"}))
                .startsWith("--systems: unknown system 'rdma'; known: memcpy, local, shm, tcp, tcp-unchecked, tcp-tls, ucx-posix"));
        assertEquals("--sizes takes sizes, each a whole number of bytes, optionally with B, KiB, MiB, GiB (1024s) or kB, "
                + "MB, GB (1000s), such as 4KiB or 32062464, was '1.5MiB'",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--sizes", "64KiB,1.5MiB"})));
        assertEquals("--sizes takes sizes from 1 B to 1073741824 B, was '2GiB' (2147483648 B)",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--sizes", "2GiB"})));
        assertEquals("--sizes takes sizes from 1 B to 1073741824 B, was '0' (0 B)",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--sizes", "0"})));
        assertTrue(mistake(() -> TransferBenchmark.parse(new String[] {out, "--sizes", "4KiB,"})).endsWith("was ''"));
        assertEquals("--rounds takes a whole number from 1 to 20, was 21",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--rounds", "21"})));
        assertEquals("--scale takes a number above 0 and at most 100, was '-1'",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--scale", "-1"})));
        assertEquals("--warmup takes a number from 0 to 600, was 'x'",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--warmup", "x"})));
        assertEquals("--rounds needs a value", mistake(() -> TransferBenchmark.parse(new String[] {out, "--rounds"})));
        assertEquals("--scale given twice",
                mistake(() -> TransferBenchmark.parse(new String[] {out, "--scale", "1", "--scale", "2"})));
    }

    /** {@code --help} gives the usage with the systems and defaults, and another option is refused, neither taken for the output directory. */
    @Test
    void helpListsTheSystemsAndDefaults(@TempDir Path dir) {
        String usage = assertThrows(BenchArgs.Help.class,
                () -> TransferBenchmark.parse(new String[] {"--sizes", "bad", "--help"})).getMessage();
        assertTrue(usage.startsWith("usage: mooncake bench transfer [OUT_DIR] [--systems a,b,...] [--sizes "), usage);
        for (TransferSystem s : TransferSystems.known()) {
            assertTrue(usage.contains("\n    " + s.name() + " "), s.name() + " in " + usage);
        }
        assertTrue(usage.contains("(default 64KiB,1MiB,32062464,206438400)"), usage);
        assertTrue(usage.contains("--rounds N      rounds the operations are split into, each goal judged within a round (3;"),
                usage);
        assertFalse(Files.exists(Path.of("--help")));
        assertTrue(mistake(() -> TransferBenchmark.parse(new String[] {"--out"})).equals("--out needs a value"));
        assertTrue(mistake(() -> TransferBenchmark.parse(new String[] {dir.toString(), "-1"})).startsWith("unknown option -1"));
    }

    /**
     * A short real run through the code path of the command line: parse, then run. Every row
     * selected is there with positive figures (ucx_perftest's where it is installed; where it is
     * not, its row says so), the report names the pinned command lines, and the results and charts
     * are written.
     */
    @Test
    void aShortRealRunGivesEveryRowItsFigures(@TempDir Path dir) throws Exception {
        TransferBenchmark b = TransferBenchmark.parse(new String[] {dir.toString(), "--systems",
                "memcpy,local,ucx_perftest-posix", "--sizes", "64KiB", "--rounds", "1", "--scale", "0.01", "--warmup", "0"});
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        TransferBenchmark.Report report = b.run(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        String text = printed.toString(java.nio.charset.StandardCharsets.UTF_8);

        assertEquals(List.of(), report.failures());
        assertEquals(1, report.rounds().size());
        boolean perftest = Processes.which("ucx_perftest").isPresent();
        List<List<Object>> expected = new java.util.ArrayList<>(List.of(List.of("memcpy", "copy"), List.of("local", "put"),
                List.of("local", "get")));
        if (perftest) {
            expected.add(List.of("ucx_perftest-posix", "put_bw"));
            assertTrue(text.contains("ucx_perftest-posix: UCX_TLS=posix,self " + UcxPerftest.CLIENT), text);
        } else {
            assertEquals(java.util.Map.of("ucx_perftest-posix", "ucx_perftest not installed (apt-get install ucx-utils)"),
                    report.notRun());
        }
        List<TransferBenchmark.Result> rows = report.rounds().getFirst();
        assertEquals(expected, rows.stream().map(r -> List.<Object>of(r.system(), r.op())).toList());
        for (TransferBenchmark.Result r : rows) {
            assertEquals(65_536, r.size(), r.toString());
            assertTrue(r.ops() > 0 && r.mibPerSecond() > 0 && Double.isFinite(r.mibPerSecond()), r.toString());
        }
        assertEquals(rows.size(), report.medians().size());
        assertTrue(report.goals().contains("ucx-posix at least 0.5x ucx_perftest-posix: not run (no ucx-posix rows)"),
                report.goals().toString());
        assertTrue(java.util.regex.Pattern.compile("(?m)^local +put +65,536 +[0-9]").matcher(text).find(), text);
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("transfer.json").toFile());
        assertEquals(rows.size(), json.get("medians").size());
        assertEquals(List.of("memcpy", "local", "ucx_perftest-posix"),
                java.util.stream.StreamSupport.stream(json.get("systems").spliterator(), false)
                        .map(com.fasterxml.jackson.databind.JsonNode::asText).toList());
        assertTrue(Files.size(dir.resolve("transfer-put.png")) > 0);
        assertTrue(Files.size(dir.resolve("transfer-get.png")) > 0);
    }

    /** A system that fails is reported, and the others' rows are kept. */
    @Test
    void aFailingSystemIsReportedAndTheOthersRun(@TempDir Path dir) throws Exception {
        TransferSystem failing = new TransferSystem("flaky", "fails at 4 KiB", List.of(), java.util.Optional::empty, true,
                rig -> size -> {
                    if (size == 4096) {
                        throw new java.io.IOException("peer went away");
                    }
                    return List.of(new TransferBenchmark.Result("flaky", "put", size, 1, 10, 1, 1));
                });
        TransferSystem absent = new TransferSystem("absent", "never here", List.of(),
                () -> java.util.Optional.of("not installed"), true, rig -> {
                    throw new AssertionError("not started");
                });
        TransferBenchmark b = TransferBenchmark.parse(new String[] {dir.toString(), "--sizes", "4KiB,8KiB", "--rounds", "2",
                "--systems", "flaky,absent"}, List.of(failing, absent));
        TransferBenchmark.Report report = b.run(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        assertEquals(List.of("flaky, 4,096 B, round 1: peer went away", "flaky, 4,096 B, round 2: peer went away"),
                report.failures());
        assertEquals(java.util.Map.of("absent", "not installed"), report.notRun());
        assertEquals(List.of(8192L, 8192L), report.rounds().stream().flatMap(List::stream)
                .map(TransferBenchmark.Result::size).toList());
    }

    /** A B in odd rounds, B A in even ones, at every size: the A/B pairs alternate which runs first. */
    @Test
    void evenRoundsMeasureTheSystemsInReverseOrder(@TempDir Path dir) throws Exception {
        List<String> measured = new java.util.ArrayList<>();
        java.util.function.Function<String, TransferSystem> recording = name -> new TransferSystem(name, "records",
                List.of(), java.util.Optional::empty, true, rig -> size -> {
                    measured.add(name + "@" + size);
                    return List.of(new TransferBenchmark.Result(name, "put", size, 1, 10, 1, 1));
                });
        TransferBenchmark b = TransferBenchmark.parse(new String[] {dir.toString(), "--sizes", "4KiB,8KiB", "--rounds", "3",
                "--systems", "a,b"}, List.of(recording.apply("a"), recording.apply("b")));
        b.run(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        assertEquals(List.of("a@4096", "b@4096", "a@8192", "b@8192", "b@4096", "a@4096", "b@8192", "a@8192",
                "a@4096", "b@4096", "a@8192", "b@8192"), measured);
    }

    @Test
    void sizesAreLabelledAsTheyAreWritten() {
        assertEquals("64KiB", TransferBenchmark.shortLabel(65_536));
        assertEquals("16MiB", TransferBenchmark.shortLabel(16 << 20));
        assertEquals("32062464", TransferBenchmark.shortLabel(32_062_464));
        assertEquals("1000", TransferBenchmark.shortLabel(1000));
        assertEquals("64 KiB", TransferBenchmark.label(65_536));
        assertEquals("206 MB (KV)", TransferBenchmark.label(206_438_400));
        assertEquals("1,000 B", TransferBenchmark.label(1000));
    }
}
