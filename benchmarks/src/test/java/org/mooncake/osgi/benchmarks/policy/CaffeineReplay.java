package org.mooncake.osgi.benchmarks.policy;

import java.util.HashSet;
import java.util.Set;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * A workload's reads replayed through Caffeine itself, bounded by bytes with each object weighed
 * by its size, as a cache-aside store uses it: a read that misses puts the object. Maintenance
 * runs on the calling thread, so every eviction happens at the put that caused it.
 */
final class CaffeineReplay {
    private CaffeineReplay() {
    }

    /** Hits over the reads that could hit (each key's first read cannot), in [0, 1]. */
    static double nonCompulsoryHitRatio(Workload w, long capacityBytes) {
        Cache<String, Long> cache = Caffeine.newBuilder().maximumWeight(capacityBytes)
                .weigher((String key, Long size) -> Math.toIntExact(size)).executor(Runnable::run).build();
        Set<String> seen = new HashSet<>();
        long hits = 0;
        long possible = 0;
        for (Request r : w.requests()) {
            for (Access a : r.accesses()) {
                if (!a.isRead()) {
                    continue;
                }
                boolean first = seen.add(a.id());
                boolean hit = cache.getIfPresent(a.id()) != null;
                if (!first) {
                    possible++;
                    hits += hit ? 1 : 0;
                }
                if (!hit) {
                    cache.put(a.id(), a.sizeBytes());
                }
            }
        }
        return possible == 0 ? 0 : (double) hits / possible;
    }
}
