package org.mooncake.osgi.benchmarks.policy;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * One read of an object by a request; on a miss the reader recomputes it and writes it back.
 *
 * @param key         the object
 * @param type        what it holds
 * @param sizeBytes   its size
 * @param costMs      what a miss really costs to recompute (what savings are counted in)
 * @param hintMs      the cost hint the writer passes with the put (the cost, or a noisy estimate)
 * @param group       the session or conversation it belongs to
 * @param prefixIndex position of a KV block in its request's prefix chain; -1 for other objects
 * @param first       the first access of the key in the workload: a compulsory miss
 * @param groupOnly    the writer's hint that only its group reads the object (a user's upload)
 */
public record Access(String key, ObjectDataType type, long sizeBytes, double costMs, double hintMs, String group,
        int prefixIndex, boolean first, boolean groupOnly) {

    /** Without the group-only hint. */
    public Access(String key, ObjectDataType type, long sizeBytes, double costMs, double hintMs, String group,
            int prefixIndex, boolean first) {
        this(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, first, false);
    }

    public boolean isKv() {
        return type == ObjectDataType.KVCACHE;
    }

    Access withFirst(boolean isFirst) {
        return new Access(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, isFirst, groupOnly);
    }

    Access withGroupOnly(boolean only) {
        return new Access(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, first, only);
    }

    Access withHint(double hint) {
        return new Access(key, type, sizeBytes, costMs, hint, group, prefixIndex, first, groupOnly);
    }
}
