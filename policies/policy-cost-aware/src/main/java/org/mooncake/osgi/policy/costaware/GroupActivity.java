package org.mooncake.osgi.policy.costaware;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reuse seen per group (the session or conversation id a connector passes with a put): writes,
 * hits, and how long the group has been writing. It tells a fresh block of a live conversation,
 * likely read next round, from a one-shot object of a stream that is never read, though both
 * have no hits of their own yet. The classes carry no verdict; the model learns what each is
 * worth: no group id; no hits yet, writing for under 1 s, under 10 s, or longer; hits below
 * half the writes; at least half.
 *
 * <p>Counting runs on any thread; {@link #prune} on the eviction thread keeps at most
 * {@code capacity} groups, dropping the least recently active.
 */
final class GroupActivity {
    static final int CLASSES = 6;
    static final int NONE = 0;
    static final int UNREAD_SHORT = 1;
    static final int UNREAD_MEDIUM = 2;
    static final int UNREAD_LONG = 3;
    static final int SOME_REUSE = 4;
    static final int MUCH_REUSE = 5;

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
        }

        void written() {
            WRITES.getAndAdd(this, 1L);
        }

        void hit() {
            HITS.getAndAdd(this, 1L);
        }
    }

    private final Map<String, Counts> groups = new ConcurrentHashMap<>();

    void written(String group, long nowMs) {
        if (group != null) {
            Counts c = groups.computeIfAbsent(group, g -> new Counts(nowMs));
            c.written();
            c.lastActiveMs = nowMs;
            c.lastWriteMs = nowMs;
        }
    }

    void hit(String group, long nowMs) {
        classOfThenHit(group, nowMs);
    }

    /** The group's class as it was before this hit, then the hit counted: one look-up on the read path. */
    int classOfThenHit(String group, long nowMs) {
        if (group == null) {
            return NONE;
        }
        Counts c = groups.get(group);
        if (c == null) {
            return UNREAD_SHORT;
        }
        int before = classOf(c);
        c.hit();
        c.lastActiveMs = nowMs;
        return before;
    }

    int classOf(String group) {
        if (group == null) {
            return NONE;
        }
        Counts c = groups.get(group);
        return c == null ? UNREAD_SHORT : classOf(c);
    }

    /**
     * Asks {@link #classOf(String)} once per run of one group: a scan meets a session's objects
     * together (they were written or read together), and the look-up was a third of scoring one.
     * The master hands out one string per group id, so the run is told by identity; equal
     * strings that are not the same instance are merely looked up again. One thread.
     */
    final class RunMemo {
        private String group;
        private int groupClass;
        private boolean known;

        int classOf(String g) {
            if (!known || g != group) {
                groupClass = GroupActivity.this.classOf(g);
                group = g;
                known = true;
            }
            return groupClass;
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
