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
 * a thousand objects, so a rehash takes microseconds), or when removed explicitly. Removals
 * leave tombstones, also swept by rehashing, when live entries, vacant ones and tombstones
 * together pass the load limit. So a shard never holds more objects, live or vacant, than two
 * thirds of its table, whose size follows the most live objects it has held; a vacant object
 * keeps its key and a few fields, not its version or blocks.
 *
 * <p>Not thread-safe: guarded by the shard lock like the objects it holds.
 */
final class KeyTable {
    private static final int MIN_CAPACITY = 16;
    private static final ObjectMeta TOMBSTONE = new ObjectMeta(ObjectKey.of("tombstone"));

    private ObjectMeta[] slots = new ObjectMeta[MIN_CAPACITY];
    private int[] mixed = new int[MIN_CAPACITY];
    private int mask = MIN_CAPACITY - 1;
    private int size;
    private int tombstones;

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
            if (mixed[i] == m && s != TOMBSTONE && s.key.equals(key)) {
                if (s.vacant()) {
                    slots[i] = TOMBSTONE;
                    size--;
                    tombstones++;
                    return null;
                }
                return s;
            }
        }
    }

    /** Adds an object whose key {@link #get} just did not find. */
    void add(ObjectMeta meta) {
        if ((size + tombstones + 1) * 3L > slots.length * 2L) { // load limit 2/3
            rehash(slots.length); // sweeps vacant objects and tombstones
            if ((size + 1) * 3L > slots.length) { // still over a third full: grow
                rehash(slots.length * 2);
            }
        }
        int m = mix(meta.hash);
        int i = m & mask;
        while (slots[i] != null && slots[i] != TOMBSTONE) {
            i = (i + 1) & mask;
        }
        if (slots[i] == TOMBSTONE) {
            tombstones--;
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
                slots[i] = TOMBSTONE;
                size--;
                tombstones++;
                return true;
            }
        }
    }

    /** A copy of the objects that are not vacant, for walks that remove as they go. */
    List<ObjectMeta> snapshot() {
        List<ObjectMeta> all = new ArrayList<>(size);
        for (ObjectMeta s : slots) {
            if (s != null && s != TOMBSTONE && !s.vacant()) {
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
        tombstones = 0;
        for (int j = 0; j < oldSlots.length; j++) {
            ObjectMeta s = oldSlots[j];
            if (s != null && s != TOMBSTONE && s.vacant()) {
                size--;
            } else if (s != null && s != TOMBSTONE) {
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
