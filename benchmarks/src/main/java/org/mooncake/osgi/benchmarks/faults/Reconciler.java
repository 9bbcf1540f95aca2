package org.mooncake.osgi.benchmarks.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.mooncake.osgi.benchmarks.faults.OpLog.Entry;
import org.mooncake.osgi.benchmarks.faults.OpLog.Op;
import org.mooncake.osgi.benchmarks.faults.OpLog.Outcome;

/**
 * Adds up the writer-side logs of a fault run against its faults ({@link FaultReport}). An
 * acknowledged object that a read found missing is excused only by a fault between its put and
 * that read: a master restart (forgotten), or the death of every segment its put named (dropped
 * with its node); otherwise it is lost. A read that returned other bytes than the key's one
 * right value is corrupt (the put was acknowledged) or half-visible (it was not).
 */
public final class Reconciler {
    static final String NOT_FOUND = "OBJECT_NOT_FOUND";
    static final String DROPPED = "dropped with its node";
    static final String FORGOTTEN = "forgotten by a master restart";

    /** An acknowledged object's fates, worst last: the one it ends in is the worst any read found. */
    static final List<String> FATES = List.of("readable", "removed", DROPPED, FORGOTTEN, "lost", "corrupt");

    private Reconciler() {
    }

    public static FaultReport reconcile(Collection<Entry> entries, List<Fault> faults) {
        Map<String, Entry> acked = new HashMap<>();
        Map<String, Long> removeStarted = new HashMap<>();
        for (Entry e : entries) {
            if (e.op() == Op.PUT && e.outcome() == Outcome.OK) {
                acked.put(e.key(), e);
            } else if (e.op() == Op.REMOVE) {
                removeStarted.merge(e.key(), e.startNanos(), Math::min);
            }
        }
        long attempted = 0;
        long succeeded = 0;
        long cutOff = 0;
        long lost = 0;
        long corrupt = 0;
        long halfVisible = 0;
        Map<String, Long> failedByCode = new TreeMap<>();
        Map<String, Integer> fate = new HashMap<>();
        Set<String> read = new HashSet<>();
        for (Entry e : entries) {
            Entry put = acked.get(e.key());
            String verdict = null; // a read's finding about an acknowledged object
            if (e.op() == Op.GET || e.op() == Op.CHECK) {
                read.add(e.key());
                if (e.outcome() == Outcome.MISMATCH) {
                    verdict = put != null ? "corrupt" : "half-visible";
                } else if (put != null && e.outcome() == Outcome.OK) {
                    verdict = "readable";
                } else if (put != null && e.outcome() == Outcome.FAIL && e.detail().equals(NOT_FOUND)) {
                    verdict = whyMissing(put, e, removeStarted.get(e.key()), faults);
                }
            }
            if (verdict != null && put != null) {
                fate.merge(e.key(), FATES.indexOf(verdict), Math::max);
            }
            attempted++;
            switch (e.outcome()) {
                case OK -> succeeded++;
                case CUT_OFF -> cutOff++;
                case MISMATCH -> {
                    if (put != null) { // a read of an acknowledged object; the sweep's reads of the others too
                        corrupt++;
                    } else {
                        halfVisible++;
                    }
                }
                case FAIL -> {
                    if ("lost".equals(verdict)) {
                        lost++;
                    } else {
                        String code = e.detail().isEmpty() ? "UNKNOWN" : e.detail();
                        if (verdict != null && !verdict.equals("readable")) {
                            code += " (" + verdict + ")";
                        } else if (put == null && e.op() == Op.CHECK) {
                            code += " (never acknowledged)";
                        }
                        failedByCode.merge(code, 1L, Long::sum);
                    }
                }
            }
        }
        Map<String, Long> objects = new LinkedHashMap<>();
        FATES.forEach(f -> objects.put(f, 0L));
        objects.put("unchecked", 0L);
        for (String key : acked.keySet()) {
            if (removeStarted.containsKey(key)) { // removed is its fate, unless a read found worse before
                fate.merge(key, FATES.indexOf("removed"), Math::max);
            }
            Integer worst = fate.get(key);
            String f = worst != null ? FATES.get(worst) : removeStarted.containsKey(key) ? "removed" : "unchecked";
            objects.merge(f, 1L, Long::sum);
        }
        return new FaultReport(byKind(faults), attempted, succeeded, failedByCode, cutOff, lost, corrupt, halfVisible,
                objects, inFlight(entries, faults, Op.PUT), inFlight(entries, faults, Op.GET), recoverMs(faults),
                faults.stream().filter(f -> f.recoveredNanos() < 0).count());
    }

    /** Why an acknowledged object was not found by {@code read}: removed, forgotten, dropped, or lost. */
    static String whyMissing(Entry put, Entry read, Long removeStart, List<Fault> faults) {
        // a remove that began before the read ended may have taken effect first (they overlapped)
        long readEnd = read.endNanos() < 0 ? Long.MAX_VALUE : read.endNanos();
        if (removeStart != null && removeStart <= readEnd) {
            return "removed";
        }
        Set<String> dead = new HashSet<>();
        for (Fault f : faults) {
            if (f.injectedNanos() >= put.startNanos() && f.injectedNanos() <= read.startNanos()) {
                if (f.forgetsObjects()) {
                    return FORGOTTEN;
                }
                dead.addAll(f.segmentsDropped());
            }
        }
        // a put whose locations the master did not say (it died just then) is excused by any node's death
        List<String> held = put.segments();
        return !dead.isEmpty() && dead.containsAll(held) ? DROPPED : "lost";
    }

    private static Map<String, Integer> byKind(List<Fault> faults) {
        Map<String, Integer> m = new TreeMap<>();
        faults.forEach(f -> m.merge(f.kind(), 1, Integer::sum));
        return m;
    }

    /** Faults injected while a load operation {@code op} was in flight: of the killed client, for a client kill. */
    private static long inFlight(Collection<Entry> entries, List<Fault> faults, Op op) {
        return faults.stream().filter(f -> entries.stream().anyMatch(e -> e.op() == op && e.inFlightAt(f.injectedNanos())
                && (!f.kind().startsWith("client-") || e.worker().equals(f.target())))).count();
    }

    private static Map<String, long[]> recoverMs(List<Fault> faults) {
        Map<String, List<Long>> byKind = new TreeMap<>();
        for (Fault f : faults) {
            if (f.recoveredNanos() >= 0) {
                byKind.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add((f.recoveredNanos() - f.injectedNanos()) / 1_000_000);
            }
        }
        Map<String, long[]> out = new TreeMap<>();
        byKind.forEach((k, v) -> {
            v.sort(null);
            out.put(k, new long[] {v.get(v.size() / 2), v.getLast()});
        });
        return out;
    }
}
