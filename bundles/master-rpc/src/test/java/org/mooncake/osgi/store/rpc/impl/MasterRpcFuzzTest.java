package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Bytes from the network through the real server loop (docs/fuzzing.md): a {@link MasterRpcServer}
 * on loopback in front of a real {@link StoreMaster}; each input is written to a new connection,
 * whose output is then shut, and everything the server sends is read until it closes.
 * <p>
 * Accepted outcomes, as docs/protocol.md states them: well-formed response frames (a result or an
 * error code), then the connection closed. Findings: a response that is not a frame, an
 * INTERNAL_ERROR (the master threw what it does not mean to), no close within
 * {@value #HANG_MS} ms (a hang), and a server thread that died of an exception.
 * <p>
 * An input whose first byte is even is sent as it is (frame-level fuzzing); one whose first byte is
 * odd is a HELLO the harness writes, then bodies, each {@code length:uint16} and its bytes, that
 * the harness frames (message-level fuzzing past the framing and the greeting).
 */
class MasterRpcFuzzTest {
    static final int HANG_MS = 10_000;
    private static final int MAX_FRAME = 1 << 20;
    private static final Queue<Throwable> DIED = new ConcurrentLinkedQueue<>();
    /** Held: the loggers the server and the master write a line per refused frame to, quiet while fuzzing. */
    private static final Logger[] QUIET = {Logger.getLogger(MasterRpcServer.class.getName()),
            Logger.getLogger("org.mooncake.osgi.store.master")};
    private static MasterRpcServer server;

    private static synchronized MasterRpcServer server() {
        if (server == null) {
            for (Logger l : QUIET) {
                l.setLevel(Level.OFF);
            }
            Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
                DIED.add(e);
                if (previous != null) {
                    previous.uncaughtException(t, e);
                }
            });
            PolicySelector policies = new PolicySelector();
            policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
            try {
                server = new MasterRpcServer(MasterRpcTest.config(0, MAX_FRAME),
                        new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies));
                warmUp(server.port());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return server;
    }

    /**
     * The documented exchange once, without a time limit: the first connection loads (and Jazzer
     * instruments) the server's and the master's classes, which can take longer than a hang.
     */
    private static void warmUp(int port) throws IOException {
        try (var loopbackOnly = BugDetectors.allowNetworkConnections((host, p) -> p == port);
                Socket s = new Socket("127.0.0.1", port)) {
            for (MasterProtocolExamples.Example e : MasterProtocolExamples.CONNECTION) {
                s.getOutputStream().write(MasterProtocolExamples.frame(e.request()));
            }
            s.shutdownOutput();
            s.getInputStream().readAllBytes();
        }
    }

    @FuzzTest
    void connection(byte[] input) throws IOException {
        checkNoThreadDied("an earlier input");
        // the harness's own connection to the server under test (Jazzer's SSRF detector allows none by default)
        try (var loopbackOnly = BugDetectors.allowNetworkConnections((host, port) -> port == server().port());
                Socket s = new Socket("127.0.0.1", server().port())) {
            s.setSoTimeout(HANG_MS);
            try {
                s.getOutputStream().write(wire(input));
                s.shutdownOutput();
            } catch (SocketException closedAlready) {
                // the server refused what came first and closed before the rest arrived
            }
            readResponsesUntilClosed(new DataInputStream(new BufferedInputStream(s.getInputStream())));
        }
        checkNoThreadDied("this input");
    }

    /** What goes on the wire for an input (see the class comment). */
    static byte[] wire(byte[] input) {
        if (input.length == 0 || (input[0] & 1) == 0) {
            return input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MasterProtocolExamples.frame(MasterProtocolExamples.CONNECTION.get(0).request()));
        ByteBuffer in = ByteBuffer.wrap(input, 1, input.length - 1);
        while (in.remaining() >= 2) {
            byte[] body = new byte[Math.min(Short.toUnsignedInt(in.getShort()), in.remaining())];
            in.get(body);
            out.writeBytes(ByteBuffer.allocate(8).putInt(Frames.MAGIC).putInt(body.length).array());
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    private static void readResponsesUntilClosed(DataInputStream in) throws IOException {
        try {
            while (true) {
                int magic;
                try {
                    magic = in.readInt();
                } catch (EOFException closed) {
                    return;
                }
                assertTrue(magic == Frames.MAGIC, "a response frame starts with the magic");
                int length = in.readInt();
                assertTrue(length >= 0 && length <= MAX_FRAME, "response frame of " + length + " bytes");
                byte[] body = in.readNBytes(length);
                assertTrue(body.length == length, "a response frame cut short");
                Messages.Response r = Messages.CBOR.readValue(body, Messages.Response.class);
                assertNotEquals(ErrorCode.INTERNAL_ERROR.code(), r.code(), "the master failed: " + r.message());
            }
        } catch (SocketTimeoutException e) {
            fail("the server neither answered nor closed within " + HANG_MS + " ms");
        } catch (SocketException reset) {
            // closed with unread input: a reset instead of an orderly close
        }
    }

    private static void checkNoThreadDied(String when) {
        Throwable died = DIED.poll();
        if (died != null) {
            throw new AssertionError("a server thread died of an exception after " + when, died);
        }
    }

}
