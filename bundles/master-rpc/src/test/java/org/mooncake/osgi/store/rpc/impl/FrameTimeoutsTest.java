package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A slow or silent peer is cut off by the frame and idle limits; a prompt one is not. */
@Timeout(30)
class FrameTimeoutsTest {
    private static final int LIMIT = 1 << 20;
    private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private final Socket client = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    private final Socket server = listener.accept();
    private final InputStream in = new BufferedInputStream(server.getInputStream());

    FrameTimeoutsTest() throws IOException {
    }

    @AfterEach
    void close() throws IOException {
        client.close();
        server.close();
        listener.close();
    }

    private static byte[] frame(int bodyBytes) {
        return ByteBuffer.allocate(8 + bodyBytes).putInt(Frames.MAGIC).putInt(bodyBytes).array();
    }

    @Test
    void aFrameSentPromptlyIsRead() throws IOException {
        client.getOutputStream().write(frame(3));
        assertArrayEquals(new byte[3], new FrameTimeouts(1_000, 1_000).read(server, in, LIMIT));
    }

    @Test
    void aPeerThatSendsNothingIsCutOffAfterTheIdleTimeout() {
        long start = System.nanoTime();
        assertThrows(SocketTimeoutException.class, () -> new FrameTimeouts(200, 10_000).read(server, in, LIMIT));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "cut off near the idle timeout");
    }

    /** One byte every 50 ms: each read is prompt, the frame never completes; the frame timeout ends it. */
    @Test
    void aPeerThatTricklesAFrameIsCutOffAfterTheFrameTimeout() {
        byte[] bytes = frame(1_000);
        Thread trickle = Thread.ofPlatform().daemon().start(() -> {
            try {
                OutputStream out = client.getOutputStream();
                for (byte b : bytes) {
                    out.write(b);
                    out.flush();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // the attacker's pace
                }
            } catch (IOException cutOff) {
                // the server closed
            }
        });
        long start = System.nanoTime();
        assertThrows(SocketTimeoutException.class, () -> new FrameTimeouts(1_000, 500).read(server, in, LIMIT));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 400 && tookMs < 5_000, "cut off at the frame timeout, took " + tookMs + " ms");
        trickle.interrupt();
    }

    @Test
    void limitsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new FrameTimeouts(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> new FrameTimeouts(0, 0));
    }
}
