package org.mooncake.osgi.store.rpc.impl;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One multiplexed connection to the master: callers on any thread send requests under a lock;
 * a reader thread completes each caller's future by request id. When the connection breaks
 * every waiting caller fails with RPC_FAIL and the connection is done (the owner opens another).
 * With TLS, the handshake completes before anything is sent, and the peer's certificate must
 * carry the {@code master} role: another holder of a cluster certificate cannot pose as the master.
 */
final class RpcConnection implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final int maxFrame;
    private final ConcurrentMap<Long, CompletableFuture<Messages.Response>> waiting = new ConcurrentHashMap<>();
    private volatile boolean broken;

    /** A connection in plain text. */
    RpcConnection(InetSocketAddress master, int connectTimeoutMs, int maxFrame) throws IOException {
        this(master, connectTimeoutMs, maxFrame, null);
    }

    /** A connection over TLS with {@code tls}, or in plain text when it is null. */
    RpcConnection(InetSocketAddress master, int connectTimeoutMs, int maxFrame, SSLContext tls) throws IOException {
        this.maxFrame = maxFrame;
        Socket plain = new Socket();
        plain.setTcpNoDelay(true);
        plain.connect(master, connectTimeoutMs);
        if (plain.getLocalSocketAddress().equals(plain.getRemoteSocketAddress())) {
            plain.close(); // a self-connect to the closed (ephemeral) port of a master that is gone
            throw new java.net.ConnectException("connection refused by " + master + " (self-connect)");
        }
        socket = tls == null ? plain : handshake(plain, master, connectTimeoutMs, tls);
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        Thread.ofVirtual().name("mooncake-rpc-reader").start(this::readLoop);
    }

    private static Socket handshake(Socket plain, InetSocketAddress master, int timeoutMs, SSLContext ctx)
            throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, master.getHostString(), master.getPort(),
                true);
        try {
            s.setSSLParameters(ClusterTls.parameters(ctx, false));
            s.setSoTimeout(timeoutMs);
            s.startHandshake();
            s.setSoTimeout(0);
            PeerIdentity peer = PeerIdentity.of((X509Certificate) s.getSession().getPeerCertificates()[0]);
            if (!peer.is(PeerIdentity.Role.MASTER)) {
                throw new IOException(master + " presented the certificate of " + peer + ", not of a master");
            }
            return s;
        } catch (IOException | IllegalArgumentException e) {
            s.close();
            throw e instanceof IOException io ? io : new IOException(e.getMessage());
        }
    }

    boolean usable() {
        return !broken;
    }

    /**
     * Sends a request and waits up to {@code timeoutMs} for its response. The request carries that
     * budget, relative, and no wall-clock deadline: the master judges it on its own clock, so the two
     * hosts' clocks need not agree.
     */
    Messages.Response call(String op, JsonNode args, long timeoutMs) {
        long id = IDS.incrementAndGet();
        CompletableFuture<Messages.Response> reply = new CompletableFuture<>();
        waiting.put(id, reply);
        try {
            byte[] body = Messages.CBOR.writeValueAsBytes(new Messages.Request(id, op, 0, timeoutMs, args));
            synchronized (out) {
                Frames.write(out, body);
            }
            return reply.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new StoreException(ErrorCode.RPC_FAIL, op + " got no answer within " + timeoutMs + " ms");
        } catch (IOException | ExecutionException e) {
            fail(e);
            throw new StoreException(ErrorCode.RPC_FAIL, op + " failed: the master connection broke (" + e + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(ErrorCode.RPC_FAIL, op + " interrupted");
        } finally {
            waiting.remove(id);
        }
    }

    private void readLoop() {
        try {
            while (true) {
                Messages.Response r = Messages.CBOR.readValue(Frames.read(in, maxFrame), Messages.Response.class);
                if (r == null) {
                    throw new Frames.BadFrame("a frame whose body is CBOR null, not a response");
                }
                CompletableFuture<Messages.Response> f = waiting.get(r.id());
                if (f != null) {
                    f.complete(r);
                }
            }
        } catch (IOException e) {
            fail(e);
        }
    }

    private void fail(Exception cause) {
        broken = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // already broken
        }
        waiting.values().forEach(f -> f.completeExceptionally(cause));
    }

    @Override
    public void close() {
        fail(new IOException("closed"));
    }
}
