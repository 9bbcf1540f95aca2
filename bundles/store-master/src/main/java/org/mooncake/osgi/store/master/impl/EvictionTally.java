package org.mooncake.osgi.store.master.impl;

import java.util.IdentityHashMap;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * What one pass evicted, counted once when the pass ends instead of once per victim: each count
 * is an atomic add (a full fence), and a pass at 10^6 objects takes about 85,000 victims.
 * Victims' data types and index groups come from their entries. One per pass, applied once;
 * pass thread only.
 */
final class EvictionTally {
    private static final ObjectDataType[] TYPES = ObjectDataType.values();

    private final long[] objectsByType = new long[TYPES.length];
    private final long[] bytesByType = new long[TYPES.length];
    private final Map<CandidateIndex.Group, long[]> byGroup = new IdentityHashMap<>();
    private CandidateIndex.Group lastGroup;
    private long[] lastCounts;

    void add(IndexEntry victim) {
        int type = victim.dataType().ordinal();
        objectsByType[type]++;
        bytesByType[type] += victim.sizeBytes();
        if (victim.group != lastGroup) { // victims come in runs of one group
            lastGroup = victim.group;
            lastCounts = byGroup.computeIfAbsent(victim.group, g -> new long[2]);
        }
        lastCounts[0]++;
        lastCounts[1] += victim.sizeBytes();
    }

    /** Applies the counts to the index's groups and the master's per-type counters. Once. */
    void apply(CandidateIndex index, TypeCounters counters) {
        byGroup.forEach((g, counts) -> index.uncount(g, counts[0], counts[1]));
        for (ObjectDataType t : TYPES) {
            int i = t.ordinal();
            if (objectsByType[i] > 0) {
                counters.evicted(t, objectsByType[i], bytesByType[i]);
                counters.gone(t, objectsByType[i], bytesByType[i]);
            }
        }
    }
}
