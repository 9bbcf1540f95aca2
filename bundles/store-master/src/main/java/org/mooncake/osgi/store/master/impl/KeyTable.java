package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * A shard's objects by key: open addressing with linear probing over two flat arrays, the
 * mixed key hash beside each slot.
 *
 * <p>Why not a HashMap: an eviction round drops tens of thousands of objects; a HashMap
 * removal re-hashes the key (reading the key and its strings) and unlinks a node, four or five
 * cache misses, 0.4 µs of the 0.7 µs a victim cost at 10^6 objects. Here the round does not
 * touch the table at all: an object with nothing readable and no put in progress is
 * <em>vacant</em> ({@link ObjectMeta#vacant()}) and the table treats it as absent. Vacant
 * objects leave when a look-up meets one, when a rehash passes over them (a shard holds about
 * a thousand objects, so a rehash takes microseconds), or when removed explicitly. So a shard
 * never holds more objects, live or vacant, than two thirds of its table, whose size follows the
 * most live objects it has held; a vacant object keeps its key and a few fields, not its version
 * or blocks.
 *
 * <p>An entry leaves by backward-shift deletion (Knuth's algorithm R for linear probing): the
 * entries after it in its run move back into the hole where their probe passes it, so no slot
 * is ever a tombstone. (With tombstones, a shard whose keys come and go, as a put-then-remove
 * workload's do, filled with them up to the load limit, and each put's look-up of its absent
 * key walked them: its look-up was a tenth of a small put's profile samples.)
 *
 * <p>Not thread-safe: guarded by the shard lock like the objects it holds.
 */
final class KeyTable {
    private static final int MIN_CAPACITY = 16;

    private ObjectMeta[] slots = new ObjectMeta[MIN_CAPACITY];
    private int[] mixed = new int[MIN_CAPACITY];
    private int mask = MIN_CAPACITY - 1;
    private int size;

    /** murmur3's finaliser: the shard index already used the hash's top bits (see {@link StoreMaster}). */
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        return h ^ (h >>> 16);
    }

    /** Entries held, vacant ones included. */
    int size() {
        return size;
    }

    /** The object of {@code key}; null when there is none or it is vacant (which then leaves). */
    ObjectMeta get(ObjectKey key) {
        int m = mix(key.hashCode());
        for (int i = m & mask;; i = (i + 1) & mask) {
            ObjectMeta s = slots[i];
            if (s == null) {
                return null;
            }
            if (mixed[i] == m && s.key.equals(key)) {
                if (s.vacant()) {
                    vacate(i);
                    return null;
                }
                return s;
            }
        }
    }

    /** Adds an object whose key {@link #get} just did not find. */
    void add(ObjectMeta meta) {
        if ((size + 1) * 3L > slots.length * 2L) { // load limit 2/3
            rehash(slots.length); // sweeps vacant objects
            if ((size + 1) * 3L > slots.length) { // still over a third full: grow
                rehash(slots.length * 2);
            }
        }
        int m = mix(meta.hash);
        int i = m & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = meta;
        mixed[i] = m;
        size++;
    }

    /** Removes exactly this object (by identity); false if it is not in the table. */
    boolean remove(ObjectMeta meta) {
        for (int i = mix(meta.hash) & mask;; i = (i + 1) & mask) {
            ObjectMeta s = slots[i];
            if (s == null) {
                return false;
            }
            if (s == meta) {
                vacate(i);
                return true;
            }
        }
    }

    /**
     * Empties slot {@code i}: each later entry of its run whose probe passes the hole (its home
     * slot is not between the hole and itself) moves into it, leaving a new hole further on,
     * until the run ends. Every entry stays reachable from its home without a tombstone.
     */
    private void vacate(int i) {
        size--;
        int hole = i;
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = mixed[j] & mask;
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                slots[hole] = slots[j];
                mixed[hole] = mixed[j];
                hole = j;
            }
        }
        slots[hole] = null;
    }

    /** Slots in the table (tests). */
    int capacity() {
        return slots.length;
    }

    /** Slots that hold an entry, live or vacant (tests: as many as {@link #size}). */
    int occupied() {
        int n = 0;
        for (ObjectMeta s : slots) {
            n += s != null ? 1 : 0;
        }
        return n;
    }

    /** A copy of the objects that are not vacant, for walks that remove as they go. */
    List<ObjectMeta> snapshot() {
        List<ObjectMeta> all = new ArrayList<>(size);
        for (ObjectMeta s : slots) {
            if (s != null && !s.vacant()) {
                all.add(s);
            }
        }
        return all;
    }

    private void rehash(int capacity) {
        ObjectMeta[] oldSlots = slots;
        int[] oldMixed = mixed;
        slots = new ObjectMeta[capacity];
        mixed = new int[capacity];
        mask = capacity - 1;
        for (int j = 0; j < oldSlots.length; j++) {
            ObjectMeta s = oldSlots[j];
            if (s != null && s.vacant()) {
                size--;
            } else if (s != null) {
                int i = oldMixed[j] & mask;
                while (slots[i] != null) {
                    i = (i + 1) & mask;
                }
                slots[i] = s;
                mixed[i] = oldMixed[j];
            }
        }
    }
}
