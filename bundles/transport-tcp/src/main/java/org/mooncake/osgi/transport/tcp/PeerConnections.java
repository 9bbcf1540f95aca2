package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Up to {@code max} connections to one peer, each used by one transfer at a time. A connection
 * that saw an error is closed, never reused, so a broken stream cannot desynchronize later frames.
 */
final class PeerConnections implements AutoCloseable {
    private static final AtomicLong REQUEST_IDS = new AtomicLong();
    /** Large enough for a whole chunk in flight, so one request costs few system calls. */
    static final int SOCKET_BUFFER = 4 << 20;

    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mooncake-tcp-deadlines");
        t.setDaemon(true);
        return t;
    });

    private final InetSocketAddress peer;
    private final long ioTimeoutMs;
    private final Semaphore permits;
    private final ConcurrentLinkedQueue<SocketChannel> idle = new ConcurrentLinkedQueue<>();
    /** Every connection, idle or busy, so that closing ends transfers in flight too. */
    private final java.util.Set<SocketChannel> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    PeerConnections(InetSocketAddress peer, int max, long ioTimeoutMs) {
        this.peer = peer;
        this.ioTimeoutMs = ioTimeoutMs;
        this.permits = new Semaphore(max);
    }

    /**
     * Moves one chunk; throws on any failure, after which that connection is gone. A chunk that
     * takes longer than the I/O timeout has its connection closed under it, which fails it.
     */
    void transfer(byte op, String segment, long offset, MemorySegment local) throws IOException, InterruptedException {
        permits.acquire();
        SocketChannel ch = null;
        ScheduledFuture<?> deadline = null;
        try {
            ch = idle.poll();
            if (ch == null) {
                ch = SocketChannel.open();
                open.add(ch);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
                ch.connect(peer);
                if (ch.getLocalAddress().equals(ch.getRemoteAddress())) {
                    // TCP "simultaneous open" with itself: the peer's (ephemeral) port is closed and
                    // the kernel picked that very port for us. Nobody is listening.
                    throw new java.net.ConnectException("connection refused by " + peer + " (self-connect)");
                }
            }
            SocketChannel doomed = ch;
            deadline = DEADLINES.schedule(() -> {
                try {
                    doomed.close();
                } catch (IOException ignored) {
                    // closing is all we want
                }
            }, ioTimeoutMs, TimeUnit.MILLISECONDS);
            long id = REQUEST_IDS.incrementAndGet();
            Wire.writeRequest(ch, new Wire.Request(op, id, segment, offset, local.byteSize()));
            if (op == Wire.WRITE) {
                Wire.send(ch, local);
            }
            int status = Wire.readResponse(ch, id, local.byteSize());
            if (status != Wire.OK) {
                throw new IOException(switch (status) {
                    case Wire.NO_SEGMENT -> "segment " + segment + " is not served at " + peer;
                    case Wire.OUT_OF_RANGE -> "range " + offset + "+" + local.byteSize() + " is outside segment " + segment;
                    default -> "peer failed the request (" + status + ")";
                });
            }
            if (op == Wire.READ) {
                Wire.receive(ch, local);
            }
            if (!deadline.cancel(false)) {
                throw new IOException("transfer of " + local.byteSize() + " bytes with " + peer + " timed out");
            }
            if (closed) {
                open.remove(ch);
                ch.close();
            } else {
                idle.add(ch);
            }
            ch = null;
        } catch (java.nio.channels.AsynchronousCloseException e) {
            throw new IOException("transfer of " + local.byteSize() + " bytes with " + peer + " timed out after "
                    + ioTimeoutMs + " ms", e);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (ch != null) {
                open.remove(ch);
                ch.close();
            }
            permits.release();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        idle.clear();
        for (SocketChannel ch : open) {
            ch.close();
        }
    }
}
