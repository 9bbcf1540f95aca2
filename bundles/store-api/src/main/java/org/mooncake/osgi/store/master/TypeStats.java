package org.mooncake.osgi.store.master;

import org.mooncake.osgi.store.api.ObjectDataType;

/** Counters of one data type since the master started (objects and bytes are current). */
public record TypeStats(ObjectDataType dataType, long objects, long bytes, long hits, long misses, long evictions,
        long evictedBytes) {
}
