package org.mooncake.osgi.store.api;

/** One piece of a ranged read: {@code length} bytes at {@code objectOffset} go to {@code targetOffset}. */
public record RangeCopy(long objectOffset, long targetOffset, long length) {
    public RangeCopy {
        StoreException.require(objectOffset >= 0 && targetOffset >= 0 && length > 0,
                "range offsets must be >= 0 and length > 0");
    }
}
