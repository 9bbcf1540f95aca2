package org.mooncake.osgi.benchmarks.faults;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writer-side log of a load: one line when an operation begins ({@code B}) and one when it
 * ends ({@code E}), each written with one unbuffered {@code write}, so a worker killed with
 * SIGKILL leaves every line it finished in the file, and an operation it was in the middle of
 * shows as a {@code B} without its {@code E}. Times are {@link System#nanoTime} (the monotonic
 * clock, shared by every process of the machine and left alone by faketime), so the harness can
 * order a worker's operations against its own faults.
 *
 * <pre>
 * B &lt;nanos&gt; &lt;worker&gt; &lt;seq&gt; &lt;op&gt; &lt;key&gt;
 * E &lt;nanos&gt; &lt;worker&gt; &lt;seq&gt; &lt;op&gt; &lt;key&gt; &lt;outcome&gt; &lt;detail&gt;
 * </pre>
 * A put's detail when it is acknowledged is its hash and the segments holding it
 * ({@code 0x...@seg1,seg2}); a read's is the hash of what it read; a failure's is its error code.
 */
public final class OpLog implements AutoCloseable {
    /** What an operation did. */
    public enum Op {
        PUT, GET, REMOVE,
        /** A read by the harness's final sweep, not part of the load. */
        CHECK
    }

    /** How an operation ended. */
    public enum Outcome {
        /** Acknowledged (a put, a remove) or read back whole (a get). */
        OK,
        /** Refused or failed with an error code (the detail). */
        FAIL,
        /** A read returned bytes other than the key's one right value. */
        MISMATCH,
        /** No end was logged: its process was killed while it ran. */
        CUT_OFF
    }

    /** One operation, begun and perhaps ended; {@code endNanos} is -1 for one cut off. */
    public record Entry(String worker, long seq, Op op, String key, long startNanos, long endNanos, Outcome outcome,
            String detail) {
        public boolean inFlightAt(long nanos) {
            return startNanos <= nanos && (endNanos < 0 || endNanos >= nanos);
        }

        /** The segments an acknowledged put named. */
        public List<String> segments() {
            int at = detail.indexOf('@');
            return at < 0 || at == detail.length() - 1 ? List.of() : List.of(detail.substring(at + 1).split(","));
        }
    }

    private final FileOutputStream out;

    public OpLog(Path file) throws IOException {
        this.out = new FileOutputStream(file.toFile(), true);
    }

    public void begin(String worker, long seq, Op op, String key) {
        write("B " + System.nanoTime() + " " + worker + " " + seq + " " + op + " " + key + "\n");
    }

    public void end(String worker, long seq, Op op, String key, Outcome outcome, String detail) {
        write("E " + System.nanoTime() + " " + worker + " " + seq + " " + op + " " + key + " " + outcome + " "
                + detail.replace(' ', '_') + "\n");
    }

    private synchronized void write(String line) {
        try {
            out.write(line.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** Every operation in {@code files}, its begin and end paired; a last line cut in half by a kill is skipped. */
    public static List<Entry> read(List<Path> files) throws IOException {
        Map<String, Entry> byId = new LinkedHashMap<>();
        for (Path f : files) {
            if (!Files.exists(f)) {
                continue;
            }
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                parse(line, byId);
            }
        }
        return new ArrayList<>(byId.values());
    }

    static void parse(String line, Map<String, Entry> byId) {
        String[] f = line.split(" ");
        if (f.length < 6 || !(f[0].equals("B") || f[0].equals("E")) || (f[0].equals("E") && f.length < 8)) {
            return;
        }
        String id = f[2] + "#" + f[3];
        long nanos = Long.parseLong(f[1]);
        Op op = Op.valueOf(f[4]);
        if (f[0].equals("B")) {
            byId.put(id, new Entry(f[2], Long.parseLong(f[3]), op, f[5], nanos, -1, Outcome.CUT_OFF, ""));
        } else {
            Entry b = byId.get(id);
            long start = b == null ? nanos : b.startNanos();
            byId.put(id, new Entry(f[2], Long.parseLong(f[3]), op, f[5], start, nanos, Outcome.valueOf(f[6]), f[7]));
        }
    }
}
