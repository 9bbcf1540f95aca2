package org.mooncake.osgi.epd.demo;

/**
 * One connector's transfers, from its counters on one worker: object count, bytes and time in
 * total, and {@code mibPerS}, the rate compared (in the measuring window, the median of the
 * requests' rates), beside a plain store put or get of objects of the same mean size, as many (up
 * to the probe's limits), on the same worker: {@code plain} is null until probed, or when nothing
 * moved. {@code runMibPerS} is the same connector's rate over the whole run before the window
 * (NaN if none), cold code and the load phase's contention included.
 */
public record TransferRow(String name, Role worker, String connector, String op, long objects, double bytes,
        double seconds, double mibPerS, ProbeResult.Figure plain, String note, double runMibPerS) {
    /** The submission's goal: a connector keeps at least 70% of the store's own rate. */
    public static final double GOAL = 0.7;
    static final double MIB = 1 << 20;

    public double ratio() {
        return plain != null && plain.mibPerS() > 0 ? mibPerS() / plain.mibPerS() : Double.NaN;
    }

    /** PASS / MISS against the goal, or {@code n/a} when either figure is missing. */
    public String verdict() {
        double r = ratio();
        return Double.isNaN(r) ? "n/a" : r >= GOAL ? "PASS" : "MISS";
    }

    public long meanObjectBytes() {
        return objects > 0 ? Math.round(bytes / objects) : 0;
    }

    TransferRow withPlain(ProbeResult.Figure figure, String why) {
        return new TransferRow(name, worker, connector, op, objects, bytes, seconds, mibPerS, figure, why, runMibPerS);
    }

    TransferRow withRun(TransferRow run) {
        return new TransferRow(name, worker, connector, op, objects, bytes, seconds, mibPerS, plain, note, run.mibPerS());
    }
}
