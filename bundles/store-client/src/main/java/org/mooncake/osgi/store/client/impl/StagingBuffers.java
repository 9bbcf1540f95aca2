package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/**
 * The host buffers through which device-resident payloads travel: at most {@code count} of
 * {@code bytes} each, allocated off-heap when first needed, registered with the client's
 * transports ({@code registerLocal}, through the client's buffer registration) and reused.
 *
 * <p>Threads: a put or get from device memory {@link #acquire acquires} one buffer and holds it,
 * exclusively, on its own thread until it {@link Lease#close closes} the lease (try-with-resources):
 * every piece of that object goes through it, and every transfer on it has finished when the
 * client's transfer call returns, so no two operations ever share a buffer at the same time.
 * When all are taken the next caller waits (fairly) for one; an interrupted wait is
 * TRANSFER_FAIL. {@link #close} frees the free buffers at once and each taken one when its
 * holder returns it.
 */
final class StagingBuffers implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(StagingBuffers.class.getName());

    private final long bytes;
    private final Semaphore permits;
    private final Consumer<MemorySegment> register;
    private final Consumer<MemorySegment> unregister;
    /** Buffers allocated and not taken; guarded by itself. */
    private final Deque<Held> free = new ArrayDeque<>();
    private volatile boolean closed;

    private record Held(Arena arena, MemorySegment memory) {
    }

    /** One buffer, held by the thread that acquired it until {@link #close}. */
    final class Lease implements AutoCloseable {
        private Held held;

        private Lease(Held held) {
            this.held = held;
        }

        /** The whole buffer: {@link StagingBuffers#bytes} bytes. */
        MemorySegment memory() {
            return held.memory();
        }

        @Override
        public void close() {
            if (held != null) {
                giveBack(held);
                held = null;
            }
        }
    }

    StagingBuffers(long bytes, int count, Consumer<MemorySegment> register, Consumer<MemorySegment> unregister) {
        if (bytes < 4096 || count < 1) {
            throw new IllegalArgumentException("device staging needs buffers of >= 4096 bytes and >= 1 buffer, not "
                    + count + " of " + bytes);
        }
        this.bytes = bytes;
        this.permits = new Semaphore(count, true);
        this.register = register;
        this.unregister = unregister;
    }

    long bytes() {
        return bytes;
    }

    /** A buffer for the calling thread alone, waiting while all are taken. */
    Lease acquire() {
        if (closed) {
            throw new StoreException(ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, "the client is closed");
        }
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "interrupted while waiting for a device staging buffer");
        }
        Held h;
        synchronized (free) {
            h = free.poll();
        }
        if (h == null) {
            try {
                Arena arena = Arena.ofShared();
                h = new Held(arena, arena.allocate(bytes, 4096));
                register.accept(h.memory());
            } catch (RuntimeException | OutOfMemoryError e) {
                permits.release();
                throw new StoreException(ErrorCode.TRANSFER_FAIL, "cannot allocate a " + bytes
                        + "-byte device staging buffer (device.staging.bytes): " + e);
            }
        }
        return new Lease(h);
    }

    private void giveBack(Held h) {
        boolean keep;
        synchronized (free) {
            keep = !closed;
            if (keep) {
                free.push(h);
            }
        }
        if (!keep) {
            release(h);
        }
        permits.release();
    }

    private void release(Held h) {
        try {
            unregister.accept(h.memory());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "unregistering a staging buffer failed: {0}", e.toString());
        }
        h.arena().close();
    }

    @Override
    public void close() {
        Held[] now;
        synchronized (free) {
            closed = true;
            now = free.toArray(Held[]::new);
            free.clear();
        }
        for (Held h : now) {
            release(h);
        }
    }
}
