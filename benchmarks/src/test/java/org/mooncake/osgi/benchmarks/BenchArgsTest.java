package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchArgsTest {
    enum Mode { SESSION, FULL_HISTORY }

    private static String mistake(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(BenchArgs.Mistake.class, e).getMessage();
    }

    @Test
    void numbersAreParsedAndKeptInTheirRange() {
        assertEquals(600, BenchArgs.wholeNumber("--n", "600", 1, 1000));
        assertEquals(1_000_000L, BenchArgs.wholeNumber("--n", "1_000_000", 1L, 2_000_000L));
        assertEquals("--n takes a whole number from 1 to 10, was 0", mistake(() -> BenchArgs.wholeNumber("--n", "0", 1, 10)));
        assertEquals("--n takes a whole number from 1 to 10, was '2.5'", mistake(() -> BenchArgs.wholeNumber("--n", "2.5", 1, 10)));
        assertEquals(0.5, BenchArgs.number("--f", "0.5", 0, 1));
        assertEquals(1.0, BenchArgs.number("--f", "1", 0, 1), "the upper end is in");
        assertTrue(mistake(() -> BenchArgs.number("--f", "0", 0, 1)).startsWith("--f takes a number above 0 and at most 1"));
        assertTrue(mistake(() -> BenchArgs.number("--f", "NaN", 0, 1)).endsWith("was 'NaN'"));
        assertTrue(mistake(() -> BenchArgs.number("--f", "Infinity", 0, Double.MAX_VALUE)).endsWith("was 'Infinity'"));
        assertEquals(2, BenchArgs.numbers("--fs", "0.1, 0.2", 0, 1).length);
    }

    @Test
    void sizesTakeBinaryAndDecimalUnits() {
        assertEquals(4096, BenchArgs.byteSize("--s", "4KiB", 1, 1L << 30));
        assertEquals(16L << 20, BenchArgs.byteSize("--s", "16MiB", 1, 1L << 30));
        assertEquals(1L << 30, BenchArgs.byteSize("--s", "1GiB", 1, 1L << 30));
        assertEquals(32_000_000, BenchArgs.byteSize("--s", "32MB", 1, 1L << 30));
        assertEquals(4_000, BenchArgs.byteSize("--s", "4kB", 1, 1L << 30));
        assertEquals(32_062_464, BenchArgs.byteSize("--s", " 32_062_464 ", 1, 1L << 30));
        assertEquals(100, BenchArgs.byteSize("--s", "100B", 1, 1L << 30));
        assertTrue(mistake(() -> BenchArgs.byteSize("--s", "4 kib", 1, 1L << 30)).endsWith("was '4 kib'"));
        assertTrue(mistake(() -> BenchArgs.byteSize("--s", "-4KiB", 1, 1L << 30)).endsWith("was '-4KiB'"));
        assertTrue(mistake(() -> BenchArgs.byteSize("--s", "99999999999GiB", 1, Long.MAX_VALUE)).endsWith("was '99999999999GiB'"),
                "an overflow is a mistake, not a wrapped number");
        assertArrayEquals(new long[] {4096, 65_536}, BenchArgs.byteSizes("--s", "64KiB,4KiB,4096", 1, 1 << 20),
                "ascending, each once");
        assertEquals(0.0, BenchArgs.nonNegative("--w", "0", 600));
        assertEquals("--w takes a number from 0 to 600, was '-0.5'", mistake(() -> BenchArgs.nonNegative("--w", "-0.5", 600)));
    }

    @Test
    void choicesNameWhatTheyTake() {
        assertEquals(Mode.FULL_HISTORY, BenchArgs.choice("--mode", "full-history", Mode.class));
        assertEquals(Mode.SESSION, BenchArgs.choice("--mode", "Session", Mode.class));
        assertEquals("--mode takes one of session, full_history, was 'x'", mistake(() -> BenchArgs.choice("--mode", "x", Mode.class)));
        assertTrue(BenchArgs.bool("--b", "true"));
        assertFalse(BenchArgs.bool("--b", "false"));
        assertEquals("--b takes true or false, was 'yes'", mistake(() -> BenchArgs.bool("--b", "yes")));
        assertEquals("--x needs a value", mistake(() -> BenchArgs.valueOf(new String[] {"--x"}, 0)));
        assertEquals("--x needs a value", mistake(() -> BenchArgs.valueOf(new String[] {"--x", "--y"}, 0)));
        assertEquals("-3", BenchArgs.valueOf(new String[] {"--x", "-3"}, 0), "a negative number is a value");
    }

    @Test
    void filesAreCheckedBeforeARunNeedsThem(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        assertEquals(file, BenchArgs.inputFile("--in", file.toString()));
        assertEquals("--in: " + dir + " is not a readable file", mistake(() -> BenchArgs.inputFile("--in", dir.toString())));
        assertEquals("--out: cannot create directory " + file.resolve("d") + " (Not a directory)",
                mistake(() -> BenchArgs.outputDirectory("--out", file.resolve("d").toString())));
        assertEquals("--out: cannot create directory " + file + " (file already exists)",
                mistake(() -> BenchArgs.outputDirectory("--out", file.toString())));
        assertTrue(Files.isDirectory(BenchArgs.outputDirectory("--out", dir.resolve("a/b").toString())));
    }

    /** The whole point: a mistake ends the program with its message and status 2, no stack trace. */
    @Test
    void aMistakeEndsTheProgramWithItsMessage() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), TransferBenchmark.class.getName(), "out", "fast")
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String said = new String(p.getInputStream().readAllBytes());
        assertEquals(2, p.exitValue(), said);
        assertEquals("bench transfer: SCALE takes a number above 0 and at most 100, was 'fast'\n", said);
    }

    /** {@code --help}, wherever it stands, prints the usage and ends with status 0, before any run. */
    @Test
    void helpPrintsTheUsageAndEndsWell() throws Exception {
        for (String main : new String[] {TransferBenchmark.class.getName(),
                org.mooncake.osgi.benchmarks.policy.PolicyBenchmark.class.getName(),
                org.mooncake.osgi.benchmarks.policy.LossAnatomy.class.getName()}) {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), main, "--seeds", "2", "--help")
                    .redirectErrorStream(true).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String said = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.exitValue(), main + ": " + said);
            assertTrue(said.startsWith("usage: "), main + ": " + said);
        }
        assertThrows(BenchArgs.Help.class, () -> BenchArgs.helpIfAsked(new String[] {"-h"}, "usage"));
        BenchArgs.helpIfAsked(new String[] {"--seeds", "2"}, "usage"); // no help asked: nothing thrown
    }
}
