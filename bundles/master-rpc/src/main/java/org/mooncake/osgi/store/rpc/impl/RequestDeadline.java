package org.mooncake.osgi.store.rpc.impl;

import java.util.concurrent.TimeUnit;

/**
 * When the server gives up on a request. A request's {@code timeoutMs} is a budget measured on the
 * server's monotonic clock from when it read the frame, so neither side's wall clock matters; a
 * request without one (an older client) may carry {@code deadlineMs}, wall-clock ms judged by the
 * master's clock as before. Neither: no limit.
 *
 * @param readAtNanos {@link System#nanoTime()} when the server read the request's frame
 */
record RequestDeadline(long readAtNanos, long timeoutMs, long deadlineMs) {

    static RequestDeadline of(Messages.Request request, long readAtNanos) {
        return new RequestDeadline(readAtNanos, request.timeoutMs(), request.deadlineMs());
    }

    /** Whether the caller has given up by {@code nowNanos} (monotonic) / {@code wallNowMs} (wall clock). */
    boolean passed(long nowNanos, long wallNowMs) {
        if (timeoutMs > 0) {
            return nowNanos - readAtNanos > TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        }
        return deadlineMs > 0 && wallNowMs > deadlineMs;
    }

    /** Whether the caller has given up now. */
    boolean passed() {
        return passed(System.nanoTime(), System.currentTimeMillis());
    }
}
