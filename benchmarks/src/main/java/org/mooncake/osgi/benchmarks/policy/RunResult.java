package org.mooncake.osgi.benchmarks.policy;

import java.util.EnumMap;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectDataType;

/** What one policy achieved on one workload at one capacity. Filled by one thread. */
public final class RunResult {
    /** Counts of one data type. */
    public static final class PerType {
        public long accesses;
        public long hits;
        public long bytes;
        public long hitBytes;
        public long compulsory;
        /** Resident bytes summed over samples (one per request), for the mean share of the cache. */
        public double residentByteSamples;

        public double hitRatio() {
            return accesses == 0 ? 0 : (double) hits / accesses;
        }

        public double byteHitRatio() {
            return bytes == 0 ? 0 : (double) hitBytes / bytes;
        }

        /** Hits over the accesses that could hit: all but each object's first. */
        public double nonCompulsoryHitRatio() {
            return accesses - compulsory == 0 ? 0 : (double) hits / (accesses - compulsory);
        }
    }

    public final Map<ObjectDataType, PerType> types = new EnumMap<>(ObjectDataType.class);
    public double cost;
    public double hitCost;
    public double compulsoryCost;
    public long prefixBlocks;
    public long prefixHits;
    public long evictions;
    public long rounds;
    public long roundNanosTotal;
    public long roundNanosMax;
    public long droppedWrites;
    /** An access log's puts, those that found no room even after a round, and its removes. */
    public long puts;
    public long droppedPuts;
    public long removes;
    public long samples;
    public long capacityBytes;
    /** What the policy had learned at the end of the run ({@code EvictionPolicy.learned()}). */
    public Map<String, Double> learned = Map.of();

    /** The mean share of capacity this type held. */
    public double residentShare(ObjectDataType t) {
        PerType p = types.get(t);
        return p == null || samples == 0 ? 0 : p.residentByteSamples / samples / capacityBytes;
    }

    PerType type(ObjectDataType t) {
        return types.computeIfAbsent(t, k -> new PerType());
    }

    public double savingRate() {
        return cost == 0 ? 0 : hitCost / cost;
    }

    /** Saving over the accesses that could hit: the primary figure. */
    public double savingRateNonCompulsory() {
        return cost - compulsoryCost == 0 ? 0 : hitCost / (cost - compulsoryCost);
    }

    /** Hits over the reads that could hit (all but the compulsory ones), over every type. */
    public double nonCompulsoryHitRatio() {
        long hits = types.values().stream().mapToLong(t -> t.hits).sum();
        long possible = types.values().stream().mapToLong(t -> t.accesses - t.compulsory).sum();
        return possible == 0 ? 0 : (double) hits / possible;
    }

    /** Bytes read from the cache over bytes read, over every type. */
    public double byteHitRatio() {
        long bytes = types.values().stream().mapToLong(t -> t.bytes).sum();
        return bytes == 0 ? 0 : (double) types.values().stream().mapToLong(t -> t.hitBytes).sum() / bytes;
    }

    /** KV blocks that hit with every earlier block of their request also hit, over all KV prefix blocks. */
    public double prefixKvHitRatio() {
        return prefixBlocks == 0 ? 0 : (double) prefixHits / prefixBlocks;
    }

    public double meanRoundMs() {
        return rounds == 0 ? 0 : roundNanosTotal / 1e6 / rounds;
    }
}
