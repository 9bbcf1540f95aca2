package org.mooncake.osgi.transport.tcp;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A segment server's wall clock under the test's control: set to any time, and optionally held
 * (the next reading blocks until {@link #release}), which keeps the server on one request while
 * the next one waits in its socket buffer.
 */
final class TestClock implements LongSupplier {
    private final AtomicLong nowMs;
    private volatile CountDownLatch held;
    private final CountDownLatch reading = new CountDownLatch(1);

    TestClock(long startMs) {
        this.nowMs = new AtomicLong(startMs);
    }

    void set(long ms) {
        nowMs.set(ms);
    }

    /** The next reading blocks until {@link #release}. */
    void hold() {
        held = new CountDownLatch(1);
    }

    /** Waits until the server blocks on a held reading. */
    boolean awaitHeldReading(long timeoutMs) throws InterruptedException {
        return reading.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    void release() {
        CountDownLatch h = held;
        held = null;
        if (h != null) {
            h.countDown();
        }
    }

    @Override
    public long getAsLong() {
        CountDownLatch h = held;
        if (h != null) {
            reading.countDown();
            try {
                if (!h.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the clock");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return nowMs.get();
    }
}
