package org.mooncake.osgi.policy.costaware;

import java.util.EnumMap;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * The cost-aware policy's settings, validated. One configuration is meant for every workload:
 * the defaults are what the benchmark runs.
 *
 * @param defaultCostMsPerMiB recompute cost assumed for objects put without a hint, per type
 * @param scanObjects         a round ranks at most this many of the oldest candidates (>= 1)
 * @param halfLifeEvents      learned figures fade by half over this many events
 * @param ghostEntries        evicted keys remembered to recognise write-backs
 * @param priorEvents         events a class needs before its own figures outweigh its type's
 * @param worthResolution     worth is compared in steps of this factor (> 1); within a step, LRU
 * @param groupEndQuantile    a group silent longer than this quantile of the gaps after which
 *                            groups wrote again has ended, and its group-only objects go first;
 *                            0 turns it off
 * @param groupOnlyReadAgainMax the group-only hint is followed while at most this share of the
 *                            group-only objects of ended groups is read again; 1 follows it always
 */
record CostAwareSettings(Map<ObjectDataType, Double> defaultCostMsPerMiB, int scanObjects, long halfLifeEvents,
        int ghostEntries, double priorEvents, double worthResolution, double groupEndQuantile,
        double groupOnlyReadAgainMax) {

    static final CostAwareSettings DEFAULTS = new CostAwareSettings(Map.of(), 131_072, 100_000, 262_144, 8, 4, 0.99, 0.1);
    private static final double FALLBACK_COST_MS_PER_MIB = 1;

    CostAwareSettings {
        defaultCostMsPerMiB = Map.copyOf(defaultCostMsPerMiB);
        defaultCostMsPerMiB.forEach((t, c) -> require(c > 0 && !c.isInfinite(),
                "default_cost_ms_per_mib for " + t + " must be a finite number > 0, was " + c));
        require(scanObjects >= 1, "scan_objects must be >= 1, was " + scanObjects);
        require(halfLifeEvents > 0, "half_life_events must be > 0, was " + halfLifeEvents);
        require(ghostEntries >= 0, "ghost_entries must be >= 0, was " + ghostEntries);
        require(priorEvents > 0 && !Double.isInfinite(priorEvents), "prior_events must be > 0, was " + priorEvents);
        require(worthResolution > 1 && !Double.isInfinite(worthResolution),
                "worth_resolution must be a finite factor > 1, was " + worthResolution);
        require(groupEndQuantile >= 0 && groupEndQuantile < 1,
                "group_end_quantile must be at least 0 (off) and below 1, was " + groupEndQuantile);
        require(groupOnlyReadAgainMax > 0 && groupOnlyReadAgainMax <= 1,
                "group_only_read_again_max must be above 0 and at most 1 (always follow the hint), was " + groupOnlyReadAgainMax);
    }

    static CostAwareSettings from(CostAwareConfig c) {
        return new CostAwareSettings(parseCosts(c.default_cost_ms_per_mib()), c.scan_objects(), c.half_life_events(),
                c.ghost_entries(), c.prior_events(), c.worth_resolution(), c.group_end_quantile(),
                c.group_only_read_again_max());
    }

    /** Parses {@code TYPE=ms_per_mib} entries; a malformed one fails with its text. */
    static Map<ObjectDataType, Double> parseCosts(String[] entries) {
        Map<ObjectDataType, Double> m = new EnumMap<>(ObjectDataType.class);
        for (String e : entries == null ? new String[0] : entries) {
            String[] kv = e.split("=", 2);
            require(kv.length == 2, "default_cost_ms_per_mib entry must be TYPE=number, was '" + e + "'");
            try {
                m.put(ObjectDataType.parse(kv[0].trim()), Double.parseDouble(kv[1].trim()));
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException("default_cost_ms_per_mib entry '" + e + "': " + ex.getMessage(), ex);
            }
        }
        return m;
    }

    double costPerMiB(ObjectDataType type) {
        return defaultCostMsPerMiB.getOrDefault(type, FALLBACK_COST_MS_PER_MIB);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
