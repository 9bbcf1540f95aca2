package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.master.TypeStats;

/** Per data type counters, updated by any thread without locks. */
final class TypeCounters {
    private final LongAdder[] objects = adders();
    private final LongAdder[] bytes = adders();
    private final LongAdder[] hits = adders();
    private final LongAdder[] misses = adders();
    private final LongAdder[] evictions = adders();
    private final LongAdder[] evictedBytes = adders();

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[ObjectDataType.values().length];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    void stored(ObjectDataType t, long size, int sign) {
        objects[t.ordinal()].add(sign);
        bytes[t.ordinal()].add(sign * size);
    }

    /** {@code count} objects of {@code size} bytes in all left the store. */
    void gone(ObjectDataType t, long count, long size) {
        objects[t.ordinal()].add(-count);
        bytes[t.ordinal()].add(-size);
    }

    void hit(ObjectDataType t) {
        hits[t.ordinal()].increment();
    }

    /** A miss has no object and so no type of its own; the caller says which it asked for. */
    void miss(ObjectDataType t) {
        misses[t.ordinal()].increment();
    }

    void evicted(ObjectDataType t, long count, long size) {
        evictions[t.ordinal()].add(count);
        evictedBytes[t.ordinal()].add(size);
    }

    List<TypeStats> snapshot() {
        List<TypeStats> out = new ArrayList<>();
        for (ObjectDataType t : ObjectDataType.values()) {
            int i = t.ordinal();
            out.add(new TypeStats(t, objects[i].sum(), bytes[i].sum(), hits[i].sum(), misses[i].sum(),
                    evictions[i].sum(), evictedBytes[i].sum()));
        }
        return out;
    }
}
