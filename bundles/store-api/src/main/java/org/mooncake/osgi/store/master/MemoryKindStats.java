package org.mooncake.osgi.store.master;

import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * The mounted segments of one {@link MemoryKind}: how many, their capacity and use (since 3.0).
 * The master's eviction watermark is over the sum of every kind ({@link MasterStats#usedRatio}):
 * these figures show how the kinds fill, they drive nothing.
 */
public record MemoryKindStats(MemoryKind kind, int segments, long capacityBytes, long usedBytes) {
    public MemoryKindStats {
        kind = kind == null ? MemoryKind.HOST : kind;
    }

    public double usedRatio() {
        return capacityBytes == 0 ? 0 : (double) usedBytes / capacityBytes;
    }
}
