package org.mooncake.osgi.policy.costaware;

import java.util.concurrent.locks.ReentrantLock;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * Keys evicted lately, so that a write-back after a miss can be told apart from a first put and
 * counted as the hit the eviction cost. Holds at most {@code capacity} ghosts; the oldest go
 * first (FIFO within each of up to 64 stripes of at least 1,024 ghosts, so about FIFO overall).
 *
 * <p>Why not a map of keys: an eviction round adds a ghost per victim, and in a full list each
 * add also drops the oldest. With a {@code ConcurrentHashMap} both re-hashed cold keys, 24 ms
 * per 60,000 evictions (half a round at 10^6 objects). Here a ghost is the key's hash code,
 * which the master hands over with the candidate ({@code CandidateView.keyHash()}, so the cold
 * key is never read), and its data, in a ring of primitive arrays beside an open-addressing
 * index; dropping the oldest needs no hashing, and keys are not retained. Two keys with one hash
 * code are possible (among 262,144 ghosts a put has about a 1 in 16,000 chance to meet one):
 * the model then counts one return too many, no more.
 *
 * <p>Threads: {@link #add} runs on the eviction thread, {@link #take} on any thread that
 * completes a put; each stripe is guarded by its own lock. A take never waits for it: if the
 * eviction thread holds the stripe (and may be descheduled while it does), the put goes on and
 * the model misses one return, which is cheaper than a put stalled by a round.
 */
final class GhostList {
    /** What the object was when it was evicted. */
    record Ghost(ObjectDataType type, int objectClass, long lastAccessMs, long idleAtEvictionMs) {
    }

    private static final int MAX_STRIPES = 64;
    private static final ObjectDataType[] TYPES = ObjectDataType.values();

    private volatile Stripe[] stripes;

    GhostList(int capacity) {
        this.stripes = stripes(capacity);
    }

    /** A new capacity; the ghosts held are kept, oldest dropped first if they no longer fit. */
    void resize(int newCapacity) {
        Stripe[] old = stripes;
        Stripe[] next = stripes(newCapacity);
        for (Stripe s : old) {
            s.lock();
            try {
                s.forEachOldestFirst((h, g) -> stripeOf(next, h).locked(to -> to.add(h, g)));
            } finally {
                s.unlock();
            }
        }
        stripes = next; // adds and takes racing with this may be lost: ghosts are statistics
    }

    /** Remembers an evicted key by its {@code hashCode()}. */
    void add(int keyHash, Ghost ghost) {
        long h = fingerprint(keyHash);
        Stripe s = stripeOf(stripes, h);
        s.lock();
        try {
            s.add(h, ghost);
        } finally {
            s.unlock();
        }
    }

    /**
     * Remembers {@code n} evicted keys at once, as {@link #add} one after another would (each
     * stripe's ghosts stay in the order given): each stripe is locked once for its share, and its
     * index slots are read for the whole share before any is written, so that their cache misses
     * overlap instead of following one another. Arrays: per ghost, its key's {@code hashCode()},
     * data type ordinal, object class, last access and idle time at eviction.
     */
    void addAll(int n, int[] keyHashes, byte[] types, int[] classes, long[] lastAccessMs, long[] idleMs) {
        Stripe[] ss = stripes;
        long[] h = new long[n];
        int[] start = new int[ss.length + 1];
        for (int i = 0; i < n; i++) {
            h[i] = fingerprint(keyHashes[i]);
            start[stripeIndex(ss, h[i]) + 1]++;
        }
        for (int k = 0; k < ss.length; k++) {
            start[k + 1] += start[k];
        }
        int[] order = new int[n]; // by stripe, in the given order within each
        int[] at = java.util.Arrays.copyOf(start, ss.length);
        for (int i = 0; i < n; i++) {
            order[at[stripeIndex(ss, h[i])]++] = i;
        }
        for (int k = 0; k < ss.length; k++) {
            if (start[k] == start[k + 1]) {
                continue;
            }
            Stripe s = ss[k];
            s.lock();
            try {
                s.touch(h, order, start[k], start[k + 1]);
                for (int j = start[k]; j < start[k + 1]; j++) {
                    int i = order[j];
                    s.add(h[i], types[i], classes[i], lastAccessMs[i], idleMs[i]);
                }
            } finally {
                s.unlock();
            }
        }
    }

    /**
     * The ghost of the key with this {@code hashCode()}, removed; null when none was evicted
     * lately, or when its stripe is busy (see the class comment).
     */
    Ghost take(int keyHash) {
        long h = fingerprint(keyHash);
        Stripe s = stripeOf(stripes, h);
        if (!s.tryLock()) {
            return null;
        }
        try {
            return s.take(h);
        } finally {
            s.unlock();
        }
    }

    /** Runs {@code action} holding the stripe of {@code keyHash}, as an add does: for tests of {@link #take}. */
    void whileStripeHeld(int keyHash, Runnable action) {
        stripeOf(stripes, fingerprint(keyHash)).locked(s -> action.run());
    }

    int size() {
        int n = 0;
        for (Stripe s : stripes) {
            s.lock();
            try {
                n += s.live;
            } finally {
                s.unlock();
            }
        }
        return n;
    }

    /** Spreads a key's hash over 64 bits; never 0, which marks a free slot. */
    static long fingerprint(int keyHash) {
        long h = keyHash * 0x9E37_79B9_7F4A_7C15L;
        h ^= h >>> 32;
        return h == 0 ? 1 : h;
    }

    private static Stripe[] stripes(int capacity) {
        // stripes of at least 1,024 ghosts: a small list is one exact FIFO, a large one about FIFO
        int n = Math.max(1, Math.min(MAX_STRIPES, Integer.highestOneBit(Math.max(1, capacity / 1024))));
        Stripe[] out = new Stripe[n];
        for (int i = 0; i < n; i++) {
            out[i] = new Stripe(Math.max(0, capacity) / n + (i < Math.max(0, capacity) % n ? 1 : 0));
        }
        return out;
    }

    private static Stripe stripeOf(Stripe[] stripes, long h) {
        return stripes[stripeIndex(stripes, h)];
    }

    private static int stripeIndex(Stripe[] stripes, long h) {
        return (int) (h >>> 40) & (stripes.length - 1);
    }

    private interface GhostSink {
        void accept(long fingerprint, Ghost ghost);
    }

    /** A ring of ghosts, oldest overwritten first, and an index from fingerprint to ring position. */
    @SuppressWarnings("serial")
    private static final class Stripe extends ReentrantLock {
        private static final int EMPTY = -1;
        private static final int GONE = -2;

        final int capacity;
        final long[] hash; // 0: taken, or never written
        final byte[] type;
        final int[] objectClass;
        final long[] lastAccessMs;
        final long[] idleMs;
        int next;
        int written;
        int live;
        /** What {@link #touch} read, kept so that its loads are not optimised away. */
        @SuppressWarnings("unused")
        long touched;

        final long[] slotHash;
        final int[] slotAt; // ring position, EMPTY or GONE
        final int mask;
        int gone;

        Stripe(int capacity) {
            this.capacity = capacity;
            hash = new long[capacity];
            type = new byte[capacity];
            objectClass = new int[capacity];
            lastAccessMs = new long[capacity];
            idleMs = new long[capacity];
            int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) * 2; // >= 2 x capacity
            slotHash = new long[slots];
            slotAt = new int[slots];
            java.util.Arrays.fill(slotAt, EMPTY);
            mask = slots - 1;
        }

        void locked(java.util.function.Consumer<Stripe> action) {
            lock();
            try {
                action.accept(this);
            } finally {
                unlock();
            }
        }

        void add(long h, Ghost g) {
            add(h, (byte) g.type().ordinal(), g.objectClass(), g.lastAccessMs(), g.idleAtEvictionMs());
        }

        void add(long h, byte ghostType, int ghostClass, long ghostLastAccessMs, long ghostIdleMs) {
            if (capacity == 0) {
                return;
            }
            int r = next;
            if (written == capacity) {
                if (hash[r] != 0) {
                    unindex(hash[r], r);
                    live--;
                }
            } else {
                written++;
            }
            hash[r] = h;
            type[r] = ghostType;
            objectClass[r] = ghostClass;
            lastAccessMs[r] = ghostLastAccessMs;
            idleMs[r] = ghostIdleMs;
            index(h, r);
            live++;
            next = r + 1 == capacity ? 0 : r + 1;
        }

        /**
         * Reads the index slots that adding {@code h[order[from..to)]} will probe first: each
         * new ghost's home slot and, in a full ring, the home slot of the ghost it replaces.
         */
        void touch(long[] h, int[] order, int from, int to) {
            long sum = 0;
            int r = next;
            for (int j = from; j < to && capacity > 0; j++) {
                sum += slotAt[(int) h[order[j]] & mask];
                if (written + (j - from) >= capacity) {
                    sum += slotAt[(int) hash[r] & mask];
                }
                r = r + 1 == capacity ? 0 : r + 1;
            }
            touched = sum;
        }

        Ghost take(long h) {
            for (int i = (int) h & mask; slotAt[i] != EMPTY; i = (i + 1) & mask) {
                int r = slotAt[i];
                if (r >= 0 && slotHash[i] == h) {
                    slotAt[i] = GONE;
                    gone++;
                    hash[r] = 0;
                    live--;
                    return new Ghost(TYPES[type[r]], objectClass[r], lastAccessMs[r], idleMs[r]);
                }
            }
            return null;
        }

        void forEachOldestFirst(GhostSink sink) {
            int oldest = written == capacity ? next : 0;
            for (int k = 0; k < written; k++) {
                int r = (oldest + k) % capacity;
                if (hash[r] != 0) {
                    sink.accept(hash[r], new Ghost(TYPES[type[r]], objectClass[r], lastAccessMs[r], idleMs[r]));
                }
            }
        }

        private void index(long h, int r) {
            if ((live + gone + 1) * 4L > slotAt.length * 3L) { // over 3/4 used: sweep the removed
                reindex();
            }
            int i = (int) h & mask;
            while (slotAt[i] >= 0) {
                i = (i + 1) & mask;
            }
            if (slotAt[i] == GONE) {
                gone--;
            }
            slotHash[i] = h;
            slotAt[i] = r;
        }

        private void unindex(long h, int r) {
            for (int i = (int) h & mask; slotAt[i] != EMPTY; i = (i + 1) & mask) {
                if (slotAt[i] == r) {
                    slotAt[i] = GONE;
                    gone++;
                    return;
                }
            }
        }

        private void reindex() {
            java.util.Arrays.fill(slotAt, EMPTY);
            gone = 0;
            for (int r = 0; r < written; r++) {
                if (hash[r] != 0) {
                    int i = (int) hash[r] & mask;
                    while (slotAt[i] != EMPTY) {
                        i = (i + 1) & mask;
                    }
                    slotHash[i] = hash[r];
                    slotAt[i] = r;
                }
            }
        }
    }
}
