package org.mooncake.osgi.epd.proxy.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The outbound work of one client request, so it can be aborted as a whole: HTTP exchanges in
 * flight (their futures are cancelled, which makes the JDK client close the connection, so the
 * worker sees it go) and open response streams (closed). Cancelled when the client goes away,
 * when an encode fails for good (its sibling encodes), and always at the end of the request.
 *
 * <p>Any thread may register or cancel; a registration after {@link #cancel} runs at once.
 */
final class RequestScope implements AutoCloseable {
    private final List<Runnable> onCancel = new ArrayList<>();
    private boolean cancelled; // guarded by this

    /** Runs {@code action} when this scope is cancelled (at once if it already is). */
    void onCancel(Runnable action) {
        synchronized (this) {
            if (!cancelled) {
                onCancel.add(action);
                return;
            }
        }
        action.run();
    }

    /** Cancels {@code f} with this scope; returns {@code f}. */
    <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        onCancel(() -> f.cancel(true));
        return f;
    }

    /** A scope cancelled with this one, and also on its own. */
    RequestScope child() {
        RequestScope c = new RequestScope();
        onCancel(c::cancel);
        return c;
    }

    boolean cancelled() {
        synchronized (this) {
            return cancelled;
        }
    }

    /** Aborts everything registered. Idempotent. */
    void cancel() {
        List<Runnable> actions;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            actions = List.copyOf(onCancel);
            onCancel.clear();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException ignored) {
                // one failing abort must not keep the others from running
            }
        }
    }

    /** The end of the request: whatever still runs is aborted. */
    @Override
    public void close() {
        cancel();
    }
}
