package org.mooncake.osgi.benchmarks;

import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * A bench command's progress on stderr, with the time left. On a terminal, a bar redrawn in
 * place (at most five times a second), with each message printed above it; otherwise (a pipe, a
 * file, CI) plain lines: one per message, and one per tenth of the work done or minute passed
 * when steps come without one, so a log holds no carriage returns. Thread-safe: the policy
 * benchmark's workers report as their runs end.
 *
 * <p>The time left is the time so far times the work left over the work done: the work's units
 * (runs, accesses, measurements) are alike enough that a rate needs no smoothing.
 * {@code -Dbench.progress=bar|lines} overrides what is detected.
 */
public final class Progress implements AutoCloseable {
    /** How progress is shown. */
    public enum Mode {
        /** A bar redrawn in place, for a terminal. */
        BAR,
        /** Plain lines, for anything else. */
        LINES
    }

    static final int BAR_WIDTH = 30;
    static final long REDRAW_MS = 200;
    static final long LINE_EVERY_MS = 60_000;

    private final String task;
    private final Mode mode;
    private final PrintStream out;
    private final InstantSource clock;
    private final long startMs;
    private long total;
    private long done;
    private long drawnMs;
    private boolean barShown;
    private long linedMs;
    private long linedTenths;

    Progress(String task, long total, Mode mode, PrintStream out, InstantSource clock) {
        this.task = task;
        this.total = total;
        this.mode = mode;
        this.out = out;
        this.clock = clock;
        this.startMs = clock.millis();
        this.linedMs = startMs;
        this.drawnMs = startMs - REDRAW_MS;
    }

    /** Progress of {@code total} units of {@code task} (such as "bench policies") on stderr, as {@link #detect} finds it. */
    public static Progress start(String task, long total) {
        return new Progress(task, total, detect(), System.err, InstantSource.system());
    }

    /** A bar when stdin, stdout and stderr are a terminal that is not "dumb", else lines; a system property decides first. */
    public static Mode detect() {
        Console console = System.console();
        String stderr;
        try {
            Path fd2 = Path.of("/proc/self/fd/2");
            stderr = Files.isSymbolicLink(fd2) ? Files.readSymbolicLink(fd2).toString() : null;
        } catch (IOException | UnsupportedOperationException e) {
            stderr = null;
        }
        return choose(System.getProperty("bench.progress"), console != null && console.isTerminal(), System.getenv("TERM"),
                stderr);
    }

    /**
     * @param forced   {@code bar} or {@code lines}, or null to detect
     * @param terminal stdin and stdout are a terminal ({@link Console#isTerminal})
     * @param term     the TERM variable
     * @param stderr   where file descriptor 2 leads, where the system tells; null where not
     */
    static Mode choose(String forced, boolean terminal, String term, String stderr) {
        if (forced != null && !forced.isBlank()) {
            return BenchArgs.choice("-Dbench.progress", forced, Mode.class);
        }
        boolean stderrIsTty = stderr == null || stderr.startsWith("/dev/pts/") || stderr.startsWith("/dev/tty");
        return terminal && stderrIsTty && term != null && !term.equals("dumb") ? Mode.BAR : Mode.LINES;
    }

    public Mode mode() {
        return mode;
    }

    /** Adds work not known when it started. */
    public synchronized void grow(long more) {
        total += more;
        show(null);
    }

    /** {@code n} more units done. */
    public synchronized void step(long n) {
        done += n;
        show(null);
    }

    /** One more unit done, said in {@code what}. */
    public synchronized void step(String what) {
        done++;
        show(what);
    }

    /** A message that is not a step: printed above the bar, or as a line. */
    public synchronized void note(String message) {
        if (mode == Mode.BAR) {
            clearBar();
            out.println(message);
            draw(clock.millis());
        } else {
            out.println("[" + task + "] " + message);
        }
        out.flush();
    }

    /** Ends the bar's line, or says that the work is done. */
    @Override
    public synchronized void close() {
        long now = clock.millis();
        if (mode == Mode.BAR) {
            draw(now);
            out.println();
        } else {
            out.println("[" + task + "] " + status(now) + ": done");
        }
        out.flush();
    }

    private void show(String what) {
        long now = clock.millis();
        if (mode == Mode.BAR) {
            if (what != null) {
                clearBar();
                out.println(what);
            }
            if (what != null || now - drawnMs >= REDRAW_MS || done >= total) {
                draw(now);
            }
        } else {
            long tenths = total <= 0 ? 0 : Math.min(10, done * 10 / total);
            if (what != null || tenths > linedTenths || now - linedMs >= LINE_EVERY_MS) {
                out.println("[" + task + "] " + status(now) + (what != null ? ": " + what : ""));
                linedMs = now;
                linedTenths = tenths;
            }
        }
        out.flush();
    }

    private void clearBar() {
        if (barShown) {
            out.print("\r\033[K");
            barShown = false;
        }
    }

    private void draw(long now) {
        int filled = total <= 0 ? 0 : (int) Math.min(BAR_WIDTH, done * BAR_WIDTH / total);
        out.print("\r\033[K" + task + " [" + "#".repeat(filled) + "-".repeat(BAR_WIDTH - filled) + "] " + status(now));
        drawnMs = now;
        barShown = true;
    }

    /** {@code 12/40 (30%), 1m05s, ETA 2m32s}. */
    String status(long now) {
        long elapsed = now - startMs;
        OptionalLong left = remainingMs(elapsed, done, total);
        return String.format(Locale.ROOT, "%d/%d (%d%%), %s, ETA %s", done, total, total <= 0 ? 0 : Math.min(100, done * 100 / total),
                duration(elapsed), left.isPresent() ? duration(left.getAsLong()) : "unknown");
    }

    /** The time left at the rate so far; none before the first unit is done. */
    static OptionalLong remainingMs(long elapsedMs, long done, long total) {
        if (done <= 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(done >= total ? 0 : Math.round((double) elapsedMs * (total - done) / done));
    }

    /** {@code 42s}, {@code 3m05s}, {@code 1h02m}. */
    static String duration(long ms) {
        long s = (ms + 500) / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
    }
}
