package org.mooncake.osgi.store.master.impl;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand. */
final class ManualClock implements InstantSource {
    private final AtomicLong millis = new AtomicLong(1_000_000);

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    void advance(long ms) {
        millis.addAndGet(ms);
    }
}
