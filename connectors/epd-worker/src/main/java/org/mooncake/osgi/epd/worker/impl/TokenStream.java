package org.mooncake.osgi.epd.worker.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The generated tokens of one request, from the engine thread (which only offers, never waits)
 * to the HTTP thread that answers (which takes, waiting). Ends with {@link End} or {@link Failed}.
 * A reader that goes away {@linkplain #cancel cancels} it; the engine drops the request at its
 * next step.
 */
final class TokenStream {
    sealed interface Event {
    }

    record Token(int id) implements Event {
    }

    /** {@code finishReason}: stop (the end token) or length; {@code promptTokens} for usage. */
    record End(String finishReason, int promptTokens) implements Event {
    }

    record Failed(ApiError error) implements Event {
    }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private volatile boolean cancelled;

    void token(int id) {
        events.add(new Token(id));
    }

    void end(String finishReason, int promptTokens) {
        events.add(new End(finishReason, promptTokens));
    }

    void fail(ApiError error) {
        events.add(new Failed(error));
    }

    /** The next event, or null after {@code timeoutMs}. */
    Event next(long timeoutMs) throws InterruptedException {
        return events.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    void cancel() {
        cancelled = true;
    }

    boolean cancelled() {
        return cancelled;
    }

    /** Every token until the end (for an answer that is not streamed); throws the failure, or a 504 after {@code timeoutMs}. */
    Collected collect(long timeoutMs) throws InterruptedException {
        List<Integer> tokens = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            Event e = next(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            switch (e) {
                case null -> {
                    cancel();
                    throw ApiError.server(504, "timeout", "the answer took longer than " + timeoutMs + " ms");
                }
                case Token t -> tokens.add(t.id());
                case End end -> {
                    return new Collected(tokens.stream().mapToInt(Integer::intValue).toArray(), end);
                }
                case Failed f -> throw f.error();
            }
        }
    }

    record Collected(int[] tokens, End end) {
    }
}
