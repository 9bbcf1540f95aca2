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

/**
 * Serves one-sided READ and WRITE on the segments this process exposes. One virtual thread per
 * connection; requests on a connection run in order. A bad frame closes only its connection.
 */
final class SegmentServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SegmentServer.class.getName());

    /** An exposed segment; requests hold the read lock while they touch its memory. */
    private record Exposed(MemorySegment memory, ReentrantReadWriteLock inUse) {
    }

    private final ConcurrentMap<String, Exposed> segments = new ConcurrentHashMap<>();
    /** Open connections and the thread serving each: close waits for those threads. */
    private final ConcurrentMap<SocketChannel, Thread> connections = new ConcurrentHashMap<>();
    private final ServerSocketChannel server;
    private final long maxRequestBytes;
    private final long spinNanos;
    private final Thread acceptor;
    private volatile boolean closed;

    /** {@code spinNanos}: how long a connection polls for its next request before it blocks. */
    SegmentServer(InetSocketAddress bind, long maxRequestBytes, long spinNanos) throws IOException {
        this.maxRequestBytes = maxRequestBytes;
        this.spinNanos = spinNanos;
        this.server = ServerSocketChannel.open().bind(bind, 128);
        this.acceptor = Thread.ofPlatform().daemon().name("mooncake-tcp-accept").start(this::acceptLoop);
    }

    int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    void expose(String name, MemorySegment memory) {
        if (segments.putIfAbsent(name, new Exposed(memory, new ReentrantReadWriteLock())) != null) {
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
            java.io.InputStream polled = ch.socket().getInputStream();
            while (true) {
                Wire.awaitReadable(polled, spinNanos);
                Wire.Request r = Wire.readRequest(ch, maxRequestBytes);
                Exposed e = segments.get(r.segment());
                boolean held = e != null && e.inUse.readLock().tryLock();
                try {
                    int status = !held ? Wire.NO_SEGMENT
                            : r.offset() > e.memory.byteSize() - r.length() ? Wire.OUT_OF_RANGE : Wire.OK;
                    if (status != Wire.OK) {
                        Wire.writeResponse(ch, status, r.requestId(), 0);
                        if (r.op() == Wire.WRITE) {
                            return; // the payload is on its way and has nowhere to go
                        }
                        continue;
                    }
                    MemorySegment target = e.memory.asSlice(r.offset(), r.length());
                    if (r.op() == Wire.WRITE) {
                        Wire.receive(ch, target);
                        Wire.writeResponse(ch, Wire.OK, r.requestId(), r.length());
                    } else {
                        Wire.writeResponse(ch, Wire.OK, r.requestId(), r.length(), target);
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
