package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/**
 * The master's tunables, validated once. Defaults are upstream Mooncake's; the limits on
 * HIDDEN_STATE objects ({@link HiddenStateLimits}) are ours and off by default.
 */
public record MasterSettings(long defaultLeaseTtlMs, long defaultSoftPinTtlMs, long maxSoftPinTtlMs,
        boolean allowEvictSoftPinned, double evictionRatio, double highWatermark, long clientTtlMs,
        long putStartDiscardTimeoutMs, long putStartReleaseTimeoutMs, AllocationStrategy allocationStrategy,
        int shards, String preferredPolicy, HiddenStateLimits hiddenState) {

    public static final MasterSettings DEFAULTS = new MasterSettings(10_000, 1_800_000, 86_400_000, true, 0.05, 0.90,
            10_000, 30_000, 600_000, AllocationStrategy.RANDOM, 1024, "");

    /**
     * What the master allows HIDDEN_STATE objects (encoder outputs, which nothing else frees):
     * {@code ttlMs}, how long one may go unread and unwritten before an eviction round removes it
     * (0: no limit); {@code tenantShare}, the fraction of capacity one tenant's evictable hidden
     * states may hold before a round evicts that tenant's least recently used ones (1: no cap).
     */
    public record HiddenStateLimits(long ttlMs, double tenantShare) {
        public static final HiddenStateLimits NONE = new HiddenStateLimits(0, 1.0);

        public HiddenStateLimits {
            // not MasterSettings.check: initialising this class must not initialise the outer one, whose
            // DEFAULTS need NONE
            if (ttlMs < 0 || !(tenantShare > 0 && tenantShare <= 1)) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "hidden.state.ttl.ms must be >= 0 (0: no limit) and "
                        + "hidden.state.tenant.share.max in (0, 1] (1: no cap); were " + ttlMs + " and " + tenantShare);
            }
        }

        boolean any() {
            return ttlMs > 0 || tenantShare < 1;
        }
    }

    /** Without limits on hidden states. */
    public MasterSettings(long defaultLeaseTtlMs, long defaultSoftPinTtlMs, long maxSoftPinTtlMs,
            boolean allowEvictSoftPinned, double evictionRatio, double highWatermark, long clientTtlMs,
            long putStartDiscardTimeoutMs, long putStartReleaseTimeoutMs, AllocationStrategy allocationStrategy,
            int shards, String preferredPolicy) {
        this(defaultLeaseTtlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allowEvictSoftPinned, evictionRatio, highWatermark,
                clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs, allocationStrategy, shards,
                preferredPolicy, HiddenStateLimits.NONE);
    }

    public MasterSettings {
        check(defaultLeaseTtlMs > 0 && defaultLeaseTtlMs <= 3_600_000, "kv.lease.ttl.ms must be 1 ms to 1 h");
        check(maxSoftPinTtlMs > 0, "max.kv.soft.pin.ttl.ms must be > 0");
        check(defaultSoftPinTtlMs > 0 && defaultSoftPinTtlMs <= maxSoftPinTtlMs,
                "kv.soft.pin.ttl.ms must be > 0 and <= max.kv.soft.pin.ttl.ms");
        check(evictionRatio > 0 && evictionRatio <= 1, "eviction.ratio must be in (0, 1]");
        check(highWatermark > 0 && highWatermark <= 1, "eviction.high.watermark.ratio must be in (0, 1]");
        check(clientTtlMs > 0, "client.ttl.ms must be > 0");
        check(putStartDiscardTimeoutMs > 0 && putStartReleaseTimeoutMs >= putStartDiscardTimeoutMs,
                "put.start.release.timeout.ms must be >= put.start.discard.timeout.ms > 0");
        check(allocationStrategy != null, "allocation.strategy is required");
        check(shards > 0 && Integer.bitCount(shards) == 1, "shards must be a power of two");
        preferredPolicy = preferredPolicy == null ? "" : preferredPolicy.trim();
        check(hiddenState != null, "hidden-state limits are required");
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, message);
        }
    }

    public MasterSettings withEviction(double ratio, double watermark) {
        return new MasterSettings(defaultLeaseTtlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allowEvictSoftPinned, ratio,
                watermark, clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs, allocationStrategy, shards,
                preferredPolicy, hiddenState);
    }

    public MasterSettings withLeaseTtl(long ttlMs) {
        return new MasterSettings(ttlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allowEvictSoftPinned, evictionRatio,
                highWatermark, clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs, allocationStrategy,
                shards, preferredPolicy, hiddenState);
    }

    public MasterSettings withAllocation(AllocationStrategy strategy) {
        return new MasterSettings(defaultLeaseTtlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allowEvictSoftPinned,
                evictionRatio, highWatermark, clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs, strategy,
                shards, preferredPolicy, hiddenState);
    }

    public MasterSettings withSoftPinnedEvictable(boolean allow) {
        return new MasterSettings(defaultLeaseTtlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allow, evictionRatio,
                highWatermark, clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs, allocationStrategy,
                shards, preferredPolicy, hiddenState);
    }

    public MasterSettings withHiddenState(HiddenStateLimits limits) {
        return new MasterSettings(defaultLeaseTtlMs, defaultSoftPinTtlMs, maxSoftPinTtlMs, allowEvictSoftPinned,
                evictionRatio, highWatermark, clientTtlMs, putStartDiscardTimeoutMs, putStartReleaseTimeoutMs,
                allocationStrategy, shards, preferredPolicy, limits);
    }
}
