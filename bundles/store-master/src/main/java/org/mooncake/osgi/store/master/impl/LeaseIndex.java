package org.mooncake.osgi.store.master.impl;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * One group's entries in lease order ({@code (lease, sequence)}, as
 * {@link org.mooncake.osgi.store.spi.eviction.Candidates#LEASE_ORDER}): sorted runs of at most
 * {@value #MAX} entries ("chunks"), kept in a skip list by their lower bound.
 *
 * <p>Why not a skip list of entries (what this replaced): removing a round's victims from it
 * searched the list from the top for each (about 0.4 µs each, a second thread's full time during
 * a round at 10^6 objects); here the evictor leaves its victims in place, claimed and skipped by
 * every reader, and {@link #purge purges} them chunk by chunk after the pass. A scan also reads
 * arrays instead of following one node after another (the first 131,072 entries of an aged
 * store: 4.6–5.3 ms against 5–8).
 *
 * <p>Threads: writers (each holding some shard lock, many at once) {@link #add} and
 * {@link #remove} under the lock of the one chunk concerned; the evictor purges likewise. Nobody
 * holds two chunk locks. A chunk's array is never changed once published: a change publishes a
 * copy, so readers iterate without any lock. A chunk owns the keys from its lower bound up to the
 * next chunk's; a lock holder re-checks, under the lock, that the map still leads there (a split or
 * the removal of an empty chunk moves the boundaries, and both happen under the lock of the chunk
 * that changes). Readers move from chunk to chunk by key, not by a map iterator, and yield only
 * published entries with keys past the last one yielded: a split that a reader races shows it no
 * entry twice and loses none that was there throughout, in either direction.
 */
final class LeaseIndex {
    /** Entries per chunk before it splits: a copy on each change stays a few cache lines. */
    static final int MAX = 64;
    private static final IndexEntry[] NONE = {};

    /** A chunk's lower bound, its key in the map. */
    record Bound(long lease, long sequence) implements Comparable<Bound> {
        static final Bound LOWEST = new Bound(Long.MIN_VALUE, Long.MIN_VALUE);

        static Bound of(IndexEntry e) {
            return new Bound(e.leaseExpiresAtMs(), e.sequence());
        }

        @Override
        public int compareTo(Bound o) {
            int c = Long.compare(lease, o.lease);
            return c != 0 ? c : Long.compare(sequence, o.sequence);
        }
    }

    private static final class Chunk {
        final Bound low;
        /** Sorted; replaced, never changed. Written under this chunk's lock. */
        volatile IndexEntry[] entries = NONE;
        /** Taken out of the map (it was empty). Guarded by this. */
        boolean removed;

        Chunk(Bound low) {
            this.low = low;
        }
    }

    private final ConcurrentSkipListMap<Bound, Chunk> chunks = new ConcurrentSkipListMap<>();
    /** Runs in a scan between finding the next chunk and reading it: where tests race a split. */
    private final Runnable afterLookUp;

    LeaseIndex() {
        this(() -> { });
    }

    LeaseIndex(Runnable afterLookUp) {
        this.afterLookUp = afterLookUp;
        chunks.put(Bound.LOWEST, new Chunk(Bound.LOWEST)); // never removed: every key has a chunk
    }

    /** Adds a published entry. Caller holds the entry's shard lock. */
    void add(IndexEntry e) {
        change(Bound.of(e), c -> {
            IndexEntry[] a = c.entries;
            int at = after(a, e.leaseExpiresAtMs(), e.sequence());
            IndexEntry[] b = new IndexEntry[a.length + 1];
            System.arraycopy(a, 0, b, 0, at);
            b[at] = e;
            System.arraycopy(a, at, b, at + 1, a.length - at);
            if (b.length > MAX) {
                split(c, b, at);
            } else {
                c.entries = b;
            }
        });
    }

    /** Takes {@code e} out if it is still here (a purge may have taken it). Caller holds its shard lock. */
    void remove(IndexEntry e) {
        change(Bound.of(e), c -> {
            IndexEntry[] a = c.entries;
            int at = indexOf(a, e);
            if (at >= 0) {
                IndexEntry[] b = new IndexEntry[a.length - 1];
                System.arraycopy(a, 0, b, 0, at);
                System.arraycopy(a, at + 1, b, at, b.length - at);
                replace(c, b);
            }
        });
    }

    /** Runs {@code change} on the chunk that owns {@code k}, holding its lock. */
    private void change(Bound k, Consumer<Chunk> change) {
        for (;;) {
            Chunk c = chunks.floorEntry(k).getValue();
            synchronized (c) {
                if (owns(c, k)) {
                    change.accept(c);
                    return;
                }
            }
        }
    }

    /**
     * Drops every entry that is no longer published from the chunks that hold {@code victims}
     * (sorted by lease order): after a pass, its claimed victims, one copy per chunk. Any thread.
     * The copy is made before the chunk's lock is taken (it reads every entry's state, each
     * perhaps a cache miss), so a writer that needs the chunk usually waits for a compare and a
     * write at most; only if a writer changed the chunk meanwhile is it made again under the lock.
     */
    void purge(List<IndexEntry> victims) {
        int i = 0;
        while (i < victims.size()) {
            Bound k = Bound.of(victims.get(i));
            Chunk c = chunks.floorEntry(k).getValue();
            IndexEntry[] a = c.entries;
            IndexEntry[] b = published(a);
            Bound end;
            synchronized (c) {
                if (!owns(c, k)) {
                    continue; // it split or left: look again
                }
                if (c.entries != a) {
                    a = c.entries;
                    b = published(a);
                }
                Map.Entry<Bound, Chunk> next = chunks.higherEntry(c.low);
                end = next == null ? null : next.getKey();
                if (b != a) {
                    replace(c, b);
                }
            }
            // the victims this chunk held are gone with it; the rest lie further on
            do {
                i++;
            } while (i < victims.size() && (end == null || Bound.of(victims.get(i)).compareTo(end) < 0));
        }
    }

    /** {@code a} without the entries no longer published; {@code a} itself when all are. */
    private static IndexEntry[] published(IndexEntry[] a) {
        IndexEntry[] b = null;
        int n = 0;
        for (int j = 0; j < a.length; j++) {
            if (!a[j].published()) {
                if (b == null) {
                    b = Arrays.copyOf(a, a.length);
                    n = j;
                }
            } else if (b != null) {
                b[n++] = a[j];
            }
        }
        return b == null ? a : n == 0 ? NONE : Arrays.copyOf(b, n);
    }

    /** Published entries, oldest lease first; weakly consistent, without locks. */
    Iterator<CandidateView> ascending() {
        return new Scan(true);
    }

    /** Published entries, newest lease first; weakly consistent, without locks. */
    Iterator<CandidateView> descending() {
        return new Scan(false);
    }

    /** Every entry held, published or not, in order: for tests. */
    List<IndexEntry> held() {
        return chunks.values().stream().flatMap(c -> Arrays.stream(c.entries)).toList();
    }

    /** Chunks in the map: for tests. */
    int chunkCount() {
        return chunks.size();
    }

    /** Whether the map still leads {@code k} to {@code c}. Caller holds {@code c}'s lock. */
    private boolean owns(Chunk c, Bound k) {
        return !c.removed && chunks.floorEntry(k).getValue() == c;
    }

    /**
     * Splits an overfull {@code b}, whose new entry is at {@code at}. Publishes the right part as
     * a chunk of its own first, then the left part: a reader between the two sees the right part
     * twice, never not at all. Entries mostly arrive at two fronts, each in lease order: reads at
     * the newest lease (appends) and puts just before the leased entries (their lease is the put
     * time). So an append leaves the left chunk full and starts the right with the new entry, and
     * an insert in the back half ends the left chunk with it, so that the next ones append there;
     * either way the chunks behind a front stay full. Elsewhere it splits in half. Always at a
     * key boundary.
     */
    private void split(Chunk c, IndexEntry[] b, int at) {
        int preferred = at == b.length - 1 ? at : at + 1 >= (b.length + 1) / 2 ? at + 1 : b.length / 2;
        int mid = splitPoint(b, preferred);
        if (mid < 0) {
            c.entries = b; // one key throughout: cannot be split by key, so it grows
            return;
        }
        Chunk right = new Chunk(Bound.of(b[mid]));
        right.entries = Arrays.copyOfRange(b, mid, b.length);
        chunks.put(right.low, right);
        c.entries = Arrays.copyOf(b, mid);
    }

    /**
     * The position nearest {@code preferred} (at it or after, else before) whose key is greater
     * than the one before it, so that the right part's bound is above every key left behind; -1
     * when there is none. Keys are unique among published entries, so this is {@code preferred}.
     */
    private static int splitPoint(IndexEntry[] b, int preferred) {
        for (int i = preferred; i < b.length; i++) {
            if (compare(b[i - 1], b[i].leaseExpiresAtMs(), b[i].sequence()) < 0) {
                return i;
            }
        }
        for (int i = preferred - 1; i > 0; i--) {
            if (compare(b[i - 1], b[i].leaseExpiresAtMs(), b[i].sequence()) < 0) {
                return i;
            }
        }
        return -1;
    }

    /** Publishes {@code b} as {@code c}'s entries; an empty chunk leaves the map (its keys fall to the one before). */
    private void replace(Chunk c, IndexEntry[] b) {
        c.entries = b;
        if (b.length == 0 && c.low != Bound.LOWEST) {
            c.removed = true;
            chunks.remove(c.low, c);
        }
    }

    /** The first position whose key is greater than {@code (lease, seq)}. */
    private static int after(IndexEntry[] a, long lease, long seq) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(a[mid], lease, seq) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static int indexOf(IndexEntry[] a, IndexEntry e) {
        for (int i = after(a, e.leaseExpiresAtMs(), e.sequence()) - 1; i >= 0 && compare(a[i], e.leaseExpiresAtMs(), e.sequence()) == 0; i--) {
            if (a[i] == e) {
                return i;
            }
        }
        return -1;
    }

    private static int compare(IndexEntry x, long lease, long seq) {
        int c = Long.compare(x.leaseExpiresAtMs(), lease);
        return c != 0 ? c : Long.compare(x.sequence(), seq);
    }

    /**
     * Walks the chunks by key. On entering a chunk it reads every entry's state at once, so that
     * their cache misses overlap, and keeps the published ones past the last key yielded.
     */
    private final class Scan implements Iterator<CandidateView> {
        private final boolean up;
        private Bound at;
        private IndexEntry[] live = new IndexEntry[MAX];
        private int n;
        private int next;
        private boolean haveLast;
        private long lastLease;
        private long lastSeq;
        private boolean done;

        Scan(boolean up) {
            this.up = up;
            Map.Entry<Bound, Chunk> first = up ? chunks.firstEntry() : chunks.lastEntry();
            at = first.getKey();
            load(first.getValue());
        }

        @Override
        public boolean hasNext() {
            while (next == n) {
                if (done) {
                    return false;
                }
                Map.Entry<Bound, Chunk> e = up ? chunks.higherEntry(at) : chunks.lowerEntry(at);
                if (e == null) {
                    done = true;
                    return false;
                }
                afterLookUp.run();
                load(e.getValue());
                if (!up && splitBehind(e.getKey())) {
                    n = 0; // the chunk split after it was found: its right part comes first
                    continue;
                }
                at = e.getKey();
            }
            return true;
        }

        /**
         * Going down, whether a chunk now lies between the one just loaded (from {@code low}) and
         * the last one read: a split published its right part after the look-up found the left,
         * and the array just read may lack those entries. (Going up, the right part is published
         * before the left shrinks, so the next look-up finds it.)
         */
        private boolean splitBehind(Bound low) {
            Bound above = chunks.higherKey(low);
            return above != null && above.compareTo(at) < 0;
        }

        @Override
        public CandidateView next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            IndexEntry e = live[next++];
            haveLast = true;
            lastLease = e.leaseExpiresAtMs();
            lastSeq = e.sequence();
            return e;
        }

        private void load(Chunk c) {
            IndexEntry[] a = c.entries;
            n = 0;
            next = 0;
            if (a.length > live.length) {
                live = new IndexEntry[a.length]; // a chunk of one key throughout (see split)
            }
            for (int j = 0; j < a.length; j++) {
                IndexEntry e = a[up ? j : a.length - 1 - j];
                if (e.published() && (!haveLast || compare(e, lastLease, lastSeq) * (up ? 1 : -1) > 0)) {
                    live[n++] = e;
                }
            }
        }
    }
}
