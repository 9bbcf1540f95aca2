package org.mooncake.osgi.store.api;

import java.util.List;

/**
 * How a put places and protects an object.
 *
 * @param replicaCount      replicas on distinct segments, 1 to {@value #MAX_REPLICAS}
 * @param softPin           what the write does to the soft pin
 * @param softPinTtlMs      soft-pin lifetime; 0 takes the master's default
 * @param hardPin           never evicted while true
 * @param preferredSegments segments to try first, in order
 * @param dataType          what the object holds
 * @param recomputeCostMs   hint for cost-aware policies: what a miss costs to recompute;
 *                          {@link Double#NaN} when unknown
 * @param groupId           group or session the object belongs to; {@code null} for none
 * @param groupOnly         only requests of the object's group will read it (a user's upload, a
 *                          session's own blocks): a hint that its reuse ends with the group's
 *                          activity, which a policy may act on. Needs a group id. Since 1.1.
 */
public record ReplicateConfig(int replicaCount, SoftPinAction softPin, long softPinTtlMs, boolean hardPin,
        List<String> preferredSegments, ObjectDataType dataType, double recomputeCostMs, String groupId,
        boolean groupOnly) {

    public static final int MAX_REPLICAS = 16;
    public static final int MAX_GROUP_ID_CHARS = 256;
    /** One replica, no pins, {@link ObjectDataType#GENERAL}, no cost hint. */
    public static final ReplicateConfig DEFAULT = builder().build();

    public ReplicateConfig {
        StoreException.require(replicaCount >= 1 && replicaCount <= MAX_REPLICAS,
                "replica count must be 1 to " + MAX_REPLICAS + ", was " + replicaCount);
        StoreException.require(softPin != null, "soft pin action is null");
        if (softPinTtlMs < 0) {
            throw new StoreException(ErrorCode.INVALID_TTL, "soft pin TTL is negative: " + softPinTtlMs);
        }
        StoreException.require(dataType != null, "data type is null");
        StoreException.require(Double.isNaN(recomputeCostMs) || recomputeCostMs >= 0 && recomputeCostMs < Double.POSITIVE_INFINITY,
                "recompute cost must be a finite number >= 0 or NaN, was " + recomputeCostMs);
        StoreException.require(groupId == null || !groupId.isEmpty() && groupId.length() <= MAX_GROUP_ID_CHARS,
                "group id must have 1 to " + MAX_GROUP_ID_CHARS + " characters");
        StoreException.require(!groupOnly || groupId != null, "an object read by its group only needs a group id");
        preferredSegments = preferredSegments == null ? List.of() : List.copyOf(preferredSegments);
    }

    /** Without the group-only hint: the components of 1.0. */
    public ReplicateConfig(int replicaCount, SoftPinAction softPin, long softPinTtlMs, boolean hardPin,
            List<String> preferredSegments, ObjectDataType dataType, double recomputeCostMs, String groupId) {
        this(replicaCount, softPin, softPinTtlMs, hardPin, preferredSegments, dataType, recomputeCostMs, groupId, false);
    }

    public boolean hasCostHint() {
        return !Double.isNaN(recomputeCostMs);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().replicaCount(replicaCount).softPin(softPin).softPinTtlMs(softPinTtlMs).hardPin(hardPin)
                .preferredSegments(preferredSegments).dataType(dataType).recomputeCostMs(recomputeCostMs)
                .groupId(groupId).groupOnly(groupOnly);
    }

    /** Builds a {@link ReplicateConfig}; every field starts at the default. */
    public static final class Builder {
        private int replicaCount = 1;
        private SoftPinAction softPin = SoftPinAction.PRESERVE;
        private long softPinTtlMs;
        private boolean hardPin;
        private List<String> preferredSegments = List.of();
        private ObjectDataType dataType = ObjectDataType.GENERAL;
        private double recomputeCostMs = Double.NaN;
        private String groupId;
        private boolean groupOnly;

        public Builder replicaCount(int n) {
            this.replicaCount = n;
            return this;
        }

        public Builder softPin(SoftPinAction action) {
            this.softPin = action;
            return this;
        }

        public Builder softPinTtlMs(long ttl) {
            this.softPinTtlMs = ttl;
            return this;
        }

        public Builder hardPin(boolean pin) {
            this.hardPin = pin;
            return this;
        }

        public Builder preferredSegments(List<String> segments) {
            this.preferredSegments = segments;
            return this;
        }

        public Builder dataType(ObjectDataType type) {
            this.dataType = type;
            return this;
        }

        public Builder recomputeCostMs(double cost) {
            this.recomputeCostMs = cost;
            return this;
        }

        public Builder groupId(String id) {
            this.groupId = id;
            return this;
        }

        /** See {@link ReplicateConfig#groupOnly()}; needs {@link #groupId}. Since 1.1. */
        public Builder groupOnly(boolean only) {
            this.groupOnly = only;
            return this;
        }

        public ReplicateConfig build() {
            return new ReplicateConfig(replicaCount, softPin, softPinTtlMs, hardPin, preferredSegments, dataType,
                    recomputeCostMs, groupId, groupOnly);
        }
    }
}
