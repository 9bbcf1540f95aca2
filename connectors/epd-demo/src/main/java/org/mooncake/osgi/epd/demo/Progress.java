package org.mooncake.osgi.epd.demo;

import java.io.PrintStream;
import java.util.Locale;

/** {@code [5/9] streaming ... ok 612 ms}: one line per stage, its outcome appended when it ends. */
final class Progress {
    private final PrintStream out;
    private final int total;
    private int done;
    private long started;
    private boolean open;

    Progress(PrintStream out, int total) {
        this.out = out;
        this.total = total;
    }

    void begin(String what) {
        done++;
        started = System.nanoTime();
        open = true;
        out.print("[" + done + "/" + total + "] " + what + " ... ");
        out.flush();
    }

    /** Ends the stage begun last; nothing if it has ended already. */
    void end(String outcome) {
        if (!open) {
            return;
        }
        open = false;
        double ms = (System.nanoTime() - started) / 1e6;
        out.println(outcome + " " + (ms >= 10_000 ? String.format(Locale.ROOT, "%.1f s", ms / 1000)
                : String.format(Locale.ROOT, "%.0f ms", ms)));
    }
}
