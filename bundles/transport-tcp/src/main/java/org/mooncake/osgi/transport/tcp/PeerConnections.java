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

import javax.net.ssl.SSLContext;

import org.mooncake.osgi.store.master.DataGrant;

/**
 * Up to {@code max} connections to one peer, each used by one transfer at a time. A connection
 * that saw an error is closed, never reused, so a broken stream cannot desynchronize later frames.
 *
 * <p>Timeouts: a transfer stamps its connection with a deadline, and one periodic sweep per peer
 * (every quarter of the timeout, 10 ms to 1 s) closes connections past theirs, which fails the
 * blocked call. A timer task per request woke the timer thread on every request, a thread
 * hand-off per 64 KiB put; a stamp is one volatile write. A transfer fails at most a quarter of
 * the timeout late.
 *
 * <p>A WRITE whose request had started to leave when its connection timed out (or the transport
 * closed) fails {@linkplain InDoubtException in doubt}: the peer may still apply it. One that the
 * peer refused, or whose connection the peer closed or reset, failed for certain.
 */
final class PeerConnections implements AutoCloseable {
    private static final AtomicLong REQUEST_IDS = new AtomicLong();
    /** Large enough for a whole chunk in flight, so one request costs few system calls. */
    static final int SOCKET_BUFFER = 4 << 20;

    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mooncake-tcp-timeouts");
        t.setDaemon(true);
        return t;
    });

    /** A connection and the deadline of the transfer using it (0 while idle). */
    private static final class Connection {
        final SocketChannel channel;
        /** Made once connected (and handshaken, with TLS) by the transfer that opened it. */
        Link link;
        volatile long deadlineNanos;
        volatile boolean timedOut;

        Connection(SocketChannel channel) {
            this.channel = channel;
        }
    }

    private final InetSocketAddress peer;
    private final long ioTimeoutMs;
    private final long spinNanos;
    private final SSLContext tls;
    private final Semaphore permits;
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
    /** Every connection, idle or busy, so that closing ends transfers in flight too. */
    private final java.util.Set<Connection> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> sweep;
    private volatile boolean closed;

    /**
     * {@code spinNanos}: how long a transfer polls for its response before it blocks; {@code tls}:
     * TLS to the peer (with this process's certificate), or null for plain TCP.
     */
    PeerConnections(InetSocketAddress peer, int max, long ioTimeoutMs, long spinNanos, SSLContext tls) {
        this.peer = peer;
        this.tls = tls;
        this.ioTimeoutMs = ioTimeoutMs;
        this.spinNanos = spinNanos;
        this.permits = new Semaphore(max);
        long period = Math.clamp(ioTimeoutMs / 4, 10, 1_000);
        this.sweep = SWEEPER.scheduleWithFixedDelay(this::closeOverdue, period, period, TimeUnit.MILLISECONDS);
    }

    private void closeOverdue() {
        long now = System.nanoTime();
        for (Connection c : open) {
            long deadline = c.deadlineNanos;
            if (deadline != 0 && now - deadline > 0) {
                c.timedOut = true;
                try {
                    c.channel.close();
                } catch (IOException ignored) {
                    // closing is all we want
                }
            }
        }
    }

    /**
     * Moves one chunk with {@code grant} (null: none); throws on any failure, after which that
     * connection is gone. A chunk that takes longer than the I/O timeout has its connection closed
     * under it, which fails it; a WRITE failed so, after its request began to leave, throws
     * {@link InDoubtException}.
     */
    void transfer(byte op, String segment, long offset, MemorySegment local, DataGrant grant)
            throws IOException, InterruptedException {
        permits.acquire();
        Connection c = null;
        boolean sent = false;
        try {
            c = idle.poll();
            if (c == null) {
                c = new Connection(SocketChannel.open());
                open.add(c);
                SocketChannel ch = c.channel;
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
                c.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ioTimeoutMs);
                ch.connect(peer);
                if (ch.getLocalAddress().equals(ch.getRemoteAddress())) {
                    // TCP "simultaneous open" with itself: the peer's (ephemeral) port is closed and
                    // the kernel picked that very port for us. Nobody is listening.
                    throw new java.net.ConnectException("connection refused by " + peer + " (self-connect)");
                }
                // the sweep still bounds the handshake: it closes the channel at the deadline
                c.link = tls == null ? Link.plain(ch) : TlsLink.open(tls, ch, false, 0);
            }
            Link link = c.link;
            c.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ioTimeoutMs);
            long id = REQUEST_IDS.incrementAndGet();
            sent = true;
            Wire.writeRequest(link, new Wire.Request(op, id, segment, offset, local.byteSize(), grant),
                    op == Wire.WRITE ? local : null);
            link.awaitReadable(spinNanos);
            int status = Wire.readResponse(link, id, local.byteSize());
            if (status != Wire.OK) {
                sent = false; // answered: nothing of this request will land
                throw new IOException(switch (status) {
                    case Wire.NO_SEGMENT -> "segment " + segment + " is not served at " + peer;
                    case Wire.OUT_OF_RANGE -> "range " + offset + "+" + local.byteSize() + " is outside segment " + segment;
                    case Wire.ACCESS_DENIED -> "access denied by " + peer + " to " + (op == Wire.WRITE ? "WRITE" : "READ")
                            + " " + offset + "+" + local.byteSize() + " of segment " + segment
                            + (grant == null ? " (no grant sent)" : " (grant refused: forged, expired or not covering it)");
                    default -> "peer failed the request (" + status + ")";
                });
            }
            if (op == Wire.READ) {
                link.receive(local);
            }
            c.deadlineNanos = 0;
            if (c.timedOut) {
                throw new IOException("transfer of " + local.byteSize() + " bytes with " + peer + " timed out");
            }
            if (closed) {
                open.remove(c);
                c.channel.close();
            } else {
                idle.add(c);
            }
            c = null;
        } catch (IOException e) {
            throw classify(e, c, op, sent, local.byteSize());
        } finally {
            if (c != null) {
                open.remove(c);
                c.channel.close();
            }
            permits.release();
        }
    }

    /**
     * The failure as reported: ended by a timeout or by this transport closing (the channel closed
     * here, under the call), in doubt for a WRITE whose request had begun to leave; else as thrown
     * (the peer's answer, its close or reset, a connect that failed), certain.
     */
    private IOException classify(IOException e, Connection c, byte op, boolean sent, long bytes) {
        boolean timedOut = c != null && c.timedOut;
        if (!timedOut && !closed) {
            return e;
        }
        String what = timedOut ? "transfer of " + bytes + " bytes with " + peer + " timed out after " + ioTimeoutMs + " ms"
                : "transfer with " + peer + " ended: the tcp transport was closed";
        return op == Wire.WRITE && sent ? new InDoubtException(what + "; the WRITE may still land", e)
                : new IOException(what, e);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        sweep.cancel(false);
        idle.clear();
        for (Connection c : open) {
            c.channel.close();
        }
    }
}
