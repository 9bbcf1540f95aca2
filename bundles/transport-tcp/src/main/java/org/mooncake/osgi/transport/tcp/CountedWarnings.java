package org.mooncake.osgi.transport.tcp;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Events a peer can cause as often as it likes (a refused request, a failed TLS handshake):
 * each is counted by reason, for {@code /metrics}, and logged as a WARNING at most once per
 * {@link #EVERY_SECONDS} seconds, the line saying how many went unlogged since the last one; so a
 * peer that sends a million bad requests costs a million counts and a few lines, not a full disk.
 */
final class CountedWarnings {
    static final long EVERY_SECONDS = 10;
    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(EVERY_SECONDS);

    private final System.Logger log;
    private final ConcurrentMap<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final AtomicLong nextLineNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong unlogged = new AtomicLong();

    /** {@code reasons}: counted from the start, at 0, so that every series exists before its first event. */
    CountedWarnings(System.Logger log, String... reasons) {
        this.log = log;
        for (String r : reasons) {
            counts.put(r, new LongAdder());
        }
    }

    /** Counts one event of {@code reason}; logs {@code line} with it unless a line was logged within the interval. */
    void record(String reason, Supplier<String> line) {
        counts.computeIfAbsent(reason, r -> new LongAdder()).increment();
        long now = System.nanoTime();
        long next = nextLineNanos.get();
        if (now - next >= 0 && nextLineNanos.compareAndSet(next, now + EVERY_NANOS)) {
            long skipped = unlogged.getAndSet(0);
            log.log(Level.WARNING, line.get() + (skipped == 0 ? ""
                    : " (" + skipped + " more since the last such line; each is counted in /metrics)"));
        } else {
            unlogged.incrementAndGet();
        }
    }

    /** Events by reason so far. */
    Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((reason, n) -> out.put(reason, n.sum()));
        return out;
    }
}
