package org.mooncake.osgi.store.rpc.impl;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One multiplexed connection to the master: callers on any thread send requests under a lock;
 * a reader thread completes each caller's future by request id. When the connection breaks
 * every waiting caller fails with RPC_FAIL and the connection is done (the owner opens another).
 */
final class RpcConnection implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final int maxFrame;
    private final ConcurrentMap<Long, CompletableFuture<Messages.Response>> waiting = new ConcurrentHashMap<>();
    private volatile boolean broken;

    RpcConnection(InetSocketAddress master, int connectTimeoutMs, int maxFrame) throws IOException {
        this.maxFrame = maxFrame;
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(master, connectTimeoutMs);
        if (socket.getLocalSocketAddress().equals(socket.getRemoteSocketAddress())) {
            socket.close(); // a self-connect to the closed (ephemeral) port of a master that is gone
            throw new java.net.ConnectException("connection refused by " + master + " (self-connect)");
        }
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        Thread.ofVirtual().name("mooncake-rpc-reader").start(this::readLoop);
    }

    boolean usable() {
        return !broken;
    }

    /** Sends a request and waits for its response until the deadline. */
    Messages.Response call(String op, JsonNode args, long timeoutMs) {
        long id = IDS.incrementAndGet();
        CompletableFuture<Messages.Response> reply = new CompletableFuture<>();
        waiting.put(id, reply);
        try {
            byte[] body = Messages.CBOR.writeValueAsBytes(
                    new Messages.Request(id, op, System.currentTimeMillis() + timeoutMs, args));
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
