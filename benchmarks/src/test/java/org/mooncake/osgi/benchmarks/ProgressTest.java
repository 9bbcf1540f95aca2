package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

class ProgressTest {
    /** A clock the test moves. */
    private static final class FakeClock implements InstantSource {
        long ms = 1_000_000;

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(ms);
        }

        @Override
        public long millis() {
            return ms;
        }
    }

    private final FakeClock clock = new FakeClock();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theTimeLeftIsTheTimeSoFarScaledByTheWorkLeft() {
        assertEquals(OptionalLong.empty(), Progress.remainingMs(5_000, 0, 10), "nothing done: no rate yet");
        assertEquals(OptionalLong.of(15_000), Progress.remainingMs(5_000, 1, 4));
        assertEquals(OptionalLong.of(3_333), Progress.remainingMs(10_000, 3, 4));
        assertEquals(OptionalLong.of(0), Progress.remainingMs(10_000, 4, 4));
        assertEquals(OptionalLong.of(0), Progress.remainingMs(10_000, 5, 4), "more done than planned: nothing left");
        assertEquals("0s", Progress.duration(499));
        assertEquals("42s", Progress.duration(42_000));
        assertEquals("3m05s", Progress.duration(185_000));
        assertEquals("1h02m", Progress.duration(3_725_000));
    }

    @Test
    void withoutATerminalEachMessageIsALineWithTheCountsAndTheTimeLeft() {
        try (Progress p = new Progress("bench policies", 4, Progress.Mode.LINES, out, clock)) {
            p.note("machine: 2 cores");
            clock.ms += 10_000;
            p.step("run a");
            clock.ms += 20_000;
            p.step("run b");
            p.grow(2);
            clock.ms += 30_000;
            p.step("run c");
        }
        assertEquals(List.of(
                "[bench policies] machine: 2 cores",
                "[bench policies] 1/4 (25%), 10s, ETA 30s: run a",
                "[bench policies] 2/4 (50%), 30s, ETA 30s: run b",
                "[bench policies] 3/6 (50%), 1m00s, ETA 1m00s: run c",
                "[bench policies] 3/6 (50%), 1m00s, ETA 1m00s: done"), printed().lines().toList());
        assertFalse(printed().contains("\r"), "a log file gets no carriage returns");
    }

    @Test
    void withoutATerminalSilentStepsPrintATenthAtATimeOrOnceAMinute() {
        try (Progress p = new Progress("bench anatomy", 1_000, Progress.Mode.LINES, out, clock)) {
            for (int i = 0; i < 250; i++) {
                clock.ms += 10;
                p.step(1);
            }
            clock.ms += Progress.LINE_EVERY_MS;
            p.step(1);
        }
        assertEquals(List.of(
                "[bench anatomy] 100/1000 (10%), 1s, ETA 9s",
                "[bench anatomy] 200/1000 (20%), 2s, ETA 8s",
                "[bench anatomy] 251/1000 (25%), 1m03s, ETA 3m07s",
                "[bench anatomy] 251/1000 (25%), 1m03s, ETA 3m07s: done"), printed().lines().toList());
    }

    @Test
    void onATerminalTheBarIsRedrawnInPlaceAndMessagesGoAboveIt() {
        try (Progress p = new Progress("bench transfer", 4, Progress.Mode.BAR, out, clock)) {
            clock.ms += 1_000;
            p.step(1);
            p.step(1); // within the redraw interval: not drawn
            p.note("tcp put 1MiB: 900 MiB/s");
            clock.ms += 1_000;
            p.step(2);
        }
        String s = printed();
        assertTrue(s.contains("\r\033[Kbench transfer [#######-----------------------] 1/4 (25%), 1s, ETA 3s"), s);
        assertEquals(1, s.split("2/4", -1).length - 1, "a redraw within 200 ms is skipped, the one after the message is not: " + s);
        assertTrue(s.contains("\r\033[Ktcp put 1MiB: 900 MiB/s\n\r\033[Kbench transfer [###############---------------] 2/4"), s);
        assertTrue(s.endsWith("[##############################] 4/4 (100%), 2s, ETA 0s\n"), s);
    }

    @Test
    void aBarOnlyWhereStdinStdoutAndStderrAreATerminal() {
        assertEquals(Progress.Mode.BAR, Progress.choose(null, true, "xterm-256color", "/dev/pts/3"));
        assertEquals(Progress.Mode.LINES, Progress.choose(null, false, "xterm", "/dev/pts/3"), "no console, or stdout piped");
        assertEquals(Progress.Mode.LINES, Progress.choose(null, true, "xterm", "/tmp/bench.log"), "stderr to a file");
        assertEquals(Progress.Mode.LINES, Progress.choose(null, true, "xterm", "pipe:[12345]"), "stderr piped");
        assertEquals(Progress.Mode.LINES, Progress.choose(null, true, "dumb", "/dev/pts/3"));
        assertEquals(Progress.Mode.LINES, Progress.choose(null, true, null, "/dev/pts/3"));
        assertEquals(Progress.Mode.BAR, Progress.choose(null, true, "xterm", null), "no /proc: trust the console");
        assertEquals(Progress.Mode.BAR, Progress.choose("bar", false, null, "/tmp/x"));
        assertEquals(Progress.Mode.LINES, Progress.choose("lines", true, "xterm", "/dev/pts/1"));
        assertTrue(assertThrows(BenchArgs.Mistake.class, () -> Progress.choose("fancy", true, "xterm", null)).getMessage()
                .startsWith("-Dbench.progress takes one of bar, lines"));
    }
}
