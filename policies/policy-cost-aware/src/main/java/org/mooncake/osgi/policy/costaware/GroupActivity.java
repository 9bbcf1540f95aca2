package org.mooncake.osgi.policy.costaware;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reuse seen per group (the session or conversation id a connector passes with a put): writes,
 * hits, and how long the group has been writing. It tells a fresh block of a live conversation,
 * likely read next round, from a one-shot object of a stream that is never read, though both
 * have no hits of their own yet. The classes carry no verdict; the model learns what each is
 * worth: no group id; no hits yet, writing for under 1 s, under 10 s, or longer; hits below
 * half the writes; at least half.
 *
 * <p>It also learns how long a live group stays quiet: the gaps after which groups wrote again
 * ({@link #endAfterMs}). A group quiet for longer than almost all of them has most likely ended,
 * and with it the reuse of the objects only it reads. Writes, not hits, because a write carries
 * its writer's own group id, while a hit on a shared object (a public image, a common prefix)
 * is counted to the group that wrote it, whoever reads it; and a live session writes at every
 * turn (its new tokens' blocks).
 *
 * <p>Counting and {@link #endAfterMs} run on any thread; {@link #prune} and
 * {@link #fadeReturnGaps} on the eviction thread, which keeps at most {@code capacity} groups,
 * dropping the least recently active (a group dropped so is no longer known, and its group-only
 * objects are ranked as any others).
 */
final class GroupActivity {
    static final int CLASSES = 7;
    static final int NONE = 0;
    static final int UNREAD_SHORT = 1;
    static final int UNREAD_MEDIUM = 2;
    static final int UNREAD_LONG = 3;
    static final int SOME_REUSE = 4;
    static final int MUCH_REUSE = 5;
    /** A group-only object of a group quiet past {@link #endAfterMs}: its own class, so that the model learns what the hint is worth. */
    static final int ENDED = 6;
    /** Activity this close to the group's last is one burst (a request's reads and writes), not a return. */
    static final long BURST_MS = 50;
    /** Return gaps seen before their quantile is trusted. */
    static final long MIN_GAPS = 64;
    /** Past this many return gaps the counts are halved, so that recent gaps weigh more. */
    static final long FADE_GAPS = 131_072;

    /**
     * One object per group, counted with atomic adds on its own fields: a round reads it for
     * every candidate and every victim, and two {@code LongAdder}s were two more cache misses.
     * A group is one session's, so its counters are rarely contended.
     */
    private static final class Counts {
        private static final VarHandle WRITES;
        private static final VarHandle HITS;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                WRITES = l.findVarHandle(Counts.class, "writes", long.class);
                HITS = l.findVarHandle(Counts.class, "hits", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile long writes;
        private volatile long hits;
        final long firstWriteMs;
        volatile long lastActiveMs;
        volatile long lastWriteMs;

        Counts(long nowMs) {
            firstWriteMs = nowMs;
            lastWriteMs = nowMs;
        }

        void written() {
            WRITES.getAndAdd(this, 1L);
        }

        void hit() {
            HITS.getAndAdd(this, 1L);
        }
    }

    private final Map<String, Counts> groups = new ConcurrentHashMap<>();
    /** Return gaps by half-octave bucket of {@code 1 + gap} ({@link ReuseModel#ageBucket}). */
    private final LongAdder[] returnGaps = new LongAdder[ReuseModel.AGE_BUCKETS];

    GroupActivity() {
        for (int b = 0; b < returnGaps.length; b++) {
            returnGaps[b] = new LongAdder();
        }
    }

    void written(String group, long nowMs) {
        if (group != null) {
            Counts c = groups.computeIfAbsent(group, g -> new Counts(nowMs));
            c.written();
            c.lastActiveMs = nowMs;
            // a return, when the group had not written for more than a burst; racing threads may
            // count one twice: a statistic
            long gap = nowMs - c.lastWriteMs;
            if (gap >= BURST_MS) {
                returnGaps[ReuseModel.ageBucket(gap)].increment();
            }
            c.lastWriteMs = nowMs;
        }
    }

    /**
     * How long a group may go without writing and still be expected back: the {@code quantile}
     * of the return gaps seen, at half-octave precision (rounded up); {@link Long#MAX_VALUE} before
     * {@link #MIN_GAPS} of them. Any thread; reads only.
     */
    long endAfterMs(double quantile) {
        long[] n = returnGapCounts();
        long total = java.util.Arrays.stream(n).sum();
        if (total < MIN_GAPS) {
            return Long.MAX_VALUE;
        }
        long seen = 0;
        for (int b = 0; b < n.length; b++) {
            seen += n[b];
            if (seen >= quantile * total) {
                return (long) Math.ceil(Math.pow(2, (b + 1) / 2.0)) - 1; // the bucket's upper end
            }
        }
        return Long.MAX_VALUE;
    }

    void hit(String group, long nowMs) {
        classOfThenHit(group, nowMs);
    }

    /** The group's class as it was before this hit, then the hit counted: one look-up on the read path. */
    int classOfThenHit(String group, long nowMs) {
        return classOfThenHit(group, false, nowMs, Long.MAX_VALUE);
    }

    /**
     * As {@link #classOfThenHit(String, long)}, with {@link #ENDED} for a group-only object of a
     * group that has not written for more than {@code endAfterMs}.
     */
    int classOfThenHit(String group, boolean groupOnly, long nowMs, long endAfterMs) {
        if (group == null) {
            return NONE;
        }
        Counts c = groups.get(group);
        if (c == null) {
            return UNREAD_SHORT;
        }
        int before = ended(groupOnly, c.lastWriteMs, nowMs, endAfterMs) ? ENDED : classOf(c);
        c.hit();
        c.lastActiveMs = nowMs;
        return before;
    }

    int classOf(String group) {
        return classOf(group, group == null ? null : groups.get(group));
    }

    /** Whether an object counts as {@link #ENDED}: put as group-only, its group last wrote more than {@code endAfterMs} ago. */
    private static boolean ended(boolean groupOnly, long lastWriteMs, long nowMs, long endAfterMs) {
        return groupOnly && nowMs - lastWriteMs > endAfterMs;
    }

    /** The class of {@code group}, whose counts are {@code c} (null when not tracked). */
    private static int classOf(String group, Counts c) {
        return group == null ? NONE : c == null ? UNREAD_SHORT : classOf(c);
    }

    /**
     * Asks {@link GroupActivity#classOf(String)} once per run of one group: a scan meets a session's objects
     * together (they were written or read together), and the look-up was a third of scoring one.
     * The master hands out one string per group id, so the run is told by identity; equal
     * strings that are not the same instance are merely looked up again. One thread.
     */
    final class RunMemo {
        private String group;
        private int groupClass;
        private long lastWriteMs;
        private boolean known;

        /** {@link #ENDED} for a group-only object of a group quiet for more than {@code endAfterMs}, else the group's class. */
        int classOf(String g, boolean groupOnly, long nowMs, long endAfterMs) {
            look(g);
            return lastWriteMs != Long.MAX_VALUE && ended(groupOnly, lastWriteMs, nowMs, endAfterMs) ? ENDED : groupClass;
        }

        private void look(String g) {
            if (!known || g != group) {
                Counts c = g == null ? null : groups.get(g);
                groupClass = GroupActivity.classOf(g, c);
                lastWriteMs = c == null ? Long.MAX_VALUE : c.lastWriteMs;
                group = g;
                known = true;
            }
        }
    }

    private static int classOf(Counts c) {
        long hits = c.hits;
        if (hits == 0) {
            long span = c.lastWriteMs - c.firstWriteMs;
            return span < 1_000 ? UNREAD_SHORT : span < 10_000 ? UNREAD_MEDIUM : UNREAD_LONG;
        }
        return hits < c.writes / 2.0 ? SOME_REUSE : MUCH_REUSE;
    }

    int size() {
        return groups.size();
    }

    /** The return gaps counted so far, by bucket. */
    private long[] returnGapCounts() {
        long[] n = new long[returnGaps.length];
        for (int b = 0; b < n.length; b++) {
            n[b] = returnGaps[b].sum();
        }
        return n;
    }

    /** Halves the return gaps counted once they pass {@link #FADE_GAPS}, so that recent ones weigh more. Eviction thread. */
    void fadeReturnGaps() {
        long[] n = returnGapCounts();
        if (java.util.Arrays.stream(n).sum() > FADE_GAPS) {
            for (int b = 0; b < n.length; b++) {
                returnGaps[b].add(-n[b] / 2);
            }
        }
    }

    /** Drops the least recently active groups beyond {@code capacity}. Eviction thread only. */
    void prune(int capacity) {
        int excess = groups.size() - capacity;
        if (excess <= 0) {
            return;
        }
        List<Map.Entry<String, Counts>> all = new ArrayList<>(groups.entrySet());
        all.sort(Comparator.comparingLong(e -> e.getValue().lastActiveMs));
        for (int i = 0; i < excess + capacity / 4 && i < all.size(); i++) {
            groups.remove(all.get(i).getKey(), all.get(i).getValue());
        }
    }
}
