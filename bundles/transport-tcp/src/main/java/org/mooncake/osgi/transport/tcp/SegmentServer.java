package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

import javax.net.ssl.SSLContext;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;

/**
 * Serves one-sided READ and WRITE on the segments this process exposes. One platform thread per
 * connection; requests on a connection run in order. A bad frame closes only its connection.
 *
 * <p>A segment exposed with a {@link GrantKey} is served only to requests whose {@link DataGrant}
 * checks PERMITTED for that segment, op and range at this node's clock, each request on its own
 * (connections are pooled and reused across objects); others are answered ACCESS_DENIED, counted
 * by reason and logged at most every {@value CountedWarnings#EVERY_SECONDS} s. The check happens when
 * the server reads the request, so a WRITE that waited in the socket buffer past its grant's
 * expiry (a stalled requester's) is refused and its bytes never land.
 */
final class SegmentServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SegmentServer.class.getName());

    /** How long a peer has to finish a TLS handshake. */
    static final int HANDSHAKE_TIMEOUT_MS = 10_000;

    /** An exposed segment ({@code grantKey} null: grants are not checked); requests hold the read lock while they touch its memory. */
    private record Exposed(MemorySegment memory, GrantKey grantKey, ReentrantReadWriteLock inUse) {
    }

    private final ConcurrentMap<String, Exposed> segments = new ConcurrentHashMap<>();
    /** Open connections and the thread serving each: close waits for those threads. */
    private final ConcurrentMap<SocketChannel, Thread> connections = new ConcurrentHashMap<>();
    private final ServerSocketChannel server;
    private final long maxRequestBytes;
    private final long spinNanos;
    private final GrantGate grants;
    private final SSLContext tls;
    private final CountedWarnings handshakeFailures = new CountedWarnings(LOG);
    private final Thread acceptor;
    private volatile boolean closed;

    /** Plain TCP, grants checked against the system clock. */
    SegmentServer(InetSocketAddress bind, long maxRequestBytes, long spinNanos) throws IOException {
        this(bind, maxRequestBytes, spinNanos, true, System::currentTimeMillis, null);
    }

    /**
     * @param spinNanos     how long a connection polls for its next request before it blocks
     * @param grantsChecked false: segments exposed with a key are served without checking grants ({@code grants.checked})
     * @param clockMs       this node's wall clock, in ms, against which grants expire
     * @param tls           TLS for every connection (the peer must present a certificate), or null for plain TCP
     */
    SegmentServer(InetSocketAddress bind, long maxRequestBytes, long spinNanos, boolean grantsChecked,
            LongSupplier clockMs, SSLContext tls) throws IOException {
        this.maxRequestBytes = maxRequestBytes;
        this.spinNanos = spinNanos;
        this.grants = new GrantGate(grantsChecked, clockMs, LOG);
        this.tls = tls;
        this.server = ServerSocketChannel.open().bind(bind, 128);
        this.acceptor = Thread.ofPlatform().daemon().name("mooncake-tcp-accept").start(this::acceptLoop);
    }

    int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /** Requests answered ACCESS_DENIED, by reason. */
    java.util.Map<String, Long> denied() {
        return grants.denied();
    }

    /** TLS handshakes that failed (no certificate, another CA, not TLS at all). */
    long handshakeFailures() {
        return handshakeFailures.counts().values().stream().mapToLong(Long::longValue).sum();
    }

    /** A segment served to every request that reaches it: no grants checked. */
    void expose(String name, MemorySegment memory) {
        expose(name, memory, null);
    }

    /** A segment served only to requests whose grant, signed with {@code grantKey}, permits them (null: none checked). */
    void expose(String name, MemorySegment memory, GrantKey grantKey) {
        if (segments.putIfAbsent(name, new Exposed(memory, grantKey, new ReentrantReadWriteLock())) != null) {
            throw new IllegalStateException("segment " + name + " is exposed already");
        }
    }

    /**
     * Stops serving a segment and waits (up to 30 s) for requests already using it, so that its
     * owner may release the memory as soon as this returns.
     */
    void withdraw(String name) {
        Exposed e = segments.remove(name);
        if (e != null) {
            try {
                if (e.inUse.writeLock().tryLock(30, TimeUnit.SECONDS)) {
                    e.inUse.writeLock().unlock();
                } else {
                    LOG.log(Level.WARNING, "segment {0} withdrawn with a transfer still running", name);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel ch = server.accept();
                if (closed) {
                    ch.close(); // accepted while closing: nobody will serve it
                    return;
                }
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, PeerConnections.SOCKET_BUFFER);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, PeerConnections.SOCKET_BUFFER);
                // a platform thread per connection: peers hold few connections, and a parked virtual
                // thread adds a poller hand-off to every request (measured: ~0.2 ms at 64 KiB)
                Thread serving = Thread.ofPlatform().daemon().name("mooncake-tcp-serve").unstarted(() -> serve(ch));
                connections.put(ch, serving);
                serving.start();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.log(Level.WARNING, "accept failed: {0}", e.toString());
            }
        }
    }

    private void serve(SocketChannel ch) {
        try (ch) {
            Link link;
            String from = peer(ch);
            try {
                link = tls == null ? Link.plain(ch) : TlsLink.open(tls, ch, true, HANDSHAKE_TIMEOUT_MS);
            } catch (IOException e) {
                if (!closed) {
                    handshakeFailures.record("handshake", () -> "tls handshake with " + from + " failed: " + e);
                }
                return;
            }
            while (true) {
                link.awaitReadable(spinNanos);
                Wire.Request r = Wire.readRequest(link, maxRequestBytes);
                Exposed e = segments.get(r.segment());
                boolean held = e != null && e.inUse.readLock().tryLock();
                try {
                    int status = !held ? Wire.NO_SEGMENT
                            : grants.denies(e.grantKey, r, from) ? Wire.ACCESS_DENIED
                            : r.offset() > e.memory.byteSize() - r.length() ? Wire.OUT_OF_RANGE : Wire.OK;
                    if (status != Wire.OK) {
                        Wire.writeResponse(link, status, r.requestId(), 0);
                        if (r.op() == Wire.WRITE) {
                            return; // the payload is on its way and has nowhere to go
                        }
                        continue;
                    }
                    MemorySegment target = e.memory.asSlice(r.offset(), r.length());
                    if (r.op() == Wire.WRITE) {
                        link.receive(target);
                        Wire.writeResponse(link, Wire.OK, r.requestId(), r.length());
                    } else {
                        Wire.writeResponse(link, Wire.OK, r.requestId(), r.length(), target);
                    }
                } finally {
                    if (held) {
                        e.inUse.readLock().unlock();
                    }
                }
            }
        } catch (Wire.ProtocolException e) {
            LOG.log(Level.WARNING, "closing a connection that broke the protocol: {0}", e.getMessage());
        } catch (IOException | IllegalStateException e) {
            // peer gone, or the segment's memory was released mid-transfer: this connection ends
        } finally {
            connections.remove(ch);
        }
    }

    private static String peer(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "a closed connection";
        }
    }

    /**
     * Stops accepting, waits for the acceptor to finish, then ends every connection and waits
     * (up to 5 s) for the threads serving them: a thread in a transfer holds the segment's memory
     * (its arena cannot close) until it has noticed, so when this returns the owner may free it.
     */
    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        acceptor.interrupt();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // still end every connection, without waiting for them
        }
        for (SocketChannel ch : connections.keySet()) {
            ch.close();
        }
        if (Thread.currentThread().isInterrupted()) {
            return;
        }
        try {
            for (Thread serving : connections.values()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !serving.join(java.time.Duration.ofNanos(left))) {
                    LOG.log(Level.WARNING, "a connection is still being served after the tcp transport closed");
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
