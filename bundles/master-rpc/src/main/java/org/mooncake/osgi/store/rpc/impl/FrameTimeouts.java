package org.mooncake.osgi.store.rpc.impl;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Time limits on the frames of one connection, so that a peer cannot hold a server thread by
 * sending nothing or by sending slowly (a slowloris): the first byte of the next frame must come
 * within {@code idleMs} (0: no limit), and the rest of that frame within {@code frameMs} of it,
 * however the bytes trickle in. Either limit passed is a {@link SocketTimeoutException}, which ends
 * the connection like any other broken frame.
 */
record FrameTimeouts(int idleMs, int frameMs) {
    FrameTimeouts {
        if (idleMs < 0 || frameMs < 1) {
            throw new IllegalArgumentException("idle timeout must be >= 0 (0: none) and frame timeout >= 1 ms");
        }
    }

    /** Reads the next frame from {@code in}, a stream over {@code socket}, within these limits. */
    byte[] read(Socket socket, InputStream in, int maxBytes) throws IOException {
        socket.setSoTimeout(idleMs);
        int first = in.read();
        if (first < 0) {
            throw new EOFException("peer closed the connection");
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(frameMs);
        InputStream rest = new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("a frame not complete within " + frameMs + " ms");
                }
                socket.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                return in.read(b, off, len);
            }
        };
        return Frames.read(new DataInputStream(new SequenceInputStream(
                new ByteArrayInputStream(new byte[] {(byte) first}), rest)), maxBytes);
    }
}
