package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.benchmarks.BenchArgs;

/** `bench policies` refuses a command line it cannot run with before any run starts, saying why. */
class PolicyBenchmarkOptionsTest {
    private static PolicyBenchmark.Options parse(Path out, String... args) {
        String[] all = new String[args.length + 4];
        all[0] = "--out";
        all[1] = out.toString();
        all[2] = "--workloads";
        all[3] = "seed600";
        System.arraycopy(args, 0, all, 4, args.length);
        return PolicyBenchmark.Options.parse(all);
    }

    private static String refused(Path out, String... args) {
        return assertThrows(BenchArgs.Mistake.class, () -> parse(out, args)).getMessage();
    }

    @Test
    void quickChangesTheDefaultsOnlyWhereverItStands(@TempDir Path dir) {
        PolicyBenchmark.Options quick = parse(dir, "--quick");
        assertEquals(200, quick.sessions());
        assertEquals(2, quick.seeds());
        for (String[] args : List.of(new String[] {"--sessions", "50", "--quick"}, new String[] {"--quick", "--sessions", "50"})) {
            PolicyBenchmark.Options o = parse(dir, args);
            assertEquals(50, o.sessions(), String.join(" ", args));
            assertEquals(2, o.seeds(), "the other quick defaults stay");
            assertArrayEquals(new double[] {0.04, 0.08, 0.12}, o.capacities());
        }
        PolicyBenchmark.Options flags = parse(dir, "--no-oracles", "--capacities", "0.05,1", "--no-group-only-hints");
        assertFalse(flags.oracles());
        assertFalse(flags.groupOnlyHints());
        assertArrayEquals(new double[] {0.05, 1}, flags.capacities());
    }

    @Test
    void valuesOutsideWhatARunCanUseAreRefusedByName(@TempDir Path dir) {
        assertTrue(refused(dir, "--sessions", "0").startsWith("--sessions takes a whole number from 1"));
        assertTrue(refused(dir, "--seeds", "0").startsWith("--seeds takes a whole number from 1"));
        assertTrue(refused(dir, "--threads", "0").startsWith("--threads"));
        assertTrue(refused(dir, "--scale", "-1").startsWith("--scale takes a number above 0"));
        assertTrue(refused(dir, "--capacities", "0.1,1.5").contains("was '1.5'"));
        assertTrue(refused(dir, "--capacities", "0.1,,0.2").contains("was ''"));
        assertTrue(refused(dir, "--capacities", "a").startsWith("--capacities takes a number"));
        assertTrue(refused(dir, "--lease-ms", "-5").startsWith("--lease-ms takes a whole number from 1 to 3600000"));
        assertEquals("--sessions needs a value", refused(dir, "--sessions", "--quick"));
        assertEquals("--seeds needs a value", refused(dir, "--seeds"));
        assertTrue(refused(dir, "--sesions", "5").startsWith("unknown option --sesions"));
        assertTrue(refused(dir, "--workloads", "seed600,foo").startsWith("--workloads takes a list of"));
    }

    @Test
    void theOutputDirectoryAndTheTraceAreCheckedFirst(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertTrue(refused(dir, "--out", file.resolve("sub").toString()).startsWith("--out: cannot create directory"));
        String trace = assertThrows(BenchArgs.Mistake.class, () -> PolicyBenchmark.Options.parse(new String[] {
                "--out", dir.toString(), "--workloads", "trace", "--trace", dir.resolve("none.jsonl").toString()})).getMessage();
        assertTrue(trace.contains("none.jsonl is not a readable file"), trace);
        Path made = dir.resolve("new/results");
        assertEquals(made, parse(dir, "--out", made.toString()).out());
        assertTrue(Files.isDirectory(made));
    }

    @Test
    void anAccessLogAloneReplaysOnlyItAndIsCheckedFirst(@TempDir Path dir) throws Exception {
        Path log = Files.writeString(dir.resolve("log.jsonl"), "{}\n");
        PolicyBenchmark.Options alone = PolicyBenchmark.Options.parse(new String[] {"--out", dir.toString(), "--access-log",
                log.toString(), "--trace", dir.resolve("no-trace.jsonl").toString()});
        assertEquals(java.util.Set.of("access-log"), alone.workloads(), "the trace the launcher passes is not read");
        assertEquals(log, alone.accessLog());
        PolicyBenchmark.Options beside = PolicyBenchmark.Options.parse(new String[] {"--out", dir.toString(), "--access-log",
                log.toString(), "--workloads", "seed600"});
        assertEquals(java.util.Set.of("seed600", "access-log"), beside.workloads());
        assertEquals(null, parse(dir).accessLog(), "no log, no replay");

        assertEquals("--workloads access-log needs --access-log FILE", refused(dir, "--workloads", "access-log"));
        assertTrue(refused(dir, "--access-log", dir.resolve("none.jsonl").toString()).contains("none.jsonl is not a readable file"));
    }
}
