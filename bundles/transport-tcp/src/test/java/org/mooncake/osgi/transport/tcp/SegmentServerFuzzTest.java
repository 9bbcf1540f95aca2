package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Bytes from the network through the real {@link SegmentServer} (docs/fuzzing.md): a server on
 * loopback exposing the two segments of docs/protocol.md's examples (one without grants, one that
 * checks grants, at the documented clock); each input is written to a new connection, whose
 * output is then shut, and everything the server sends is read until it closes.
 * <p>
 * Accepted outcomes, as docs/protocol.md states them: each well-formed request answered in order
 * (a status the protocol defines, a READ's payload after its header), then the connection closed.
 * Findings: any other answer, no close within {@value #HANG_MS} ms (a hang), a serving thread that
 * died of an exception.
 */
class SegmentServerFuzzTest {
    static final int HANG_MS = 10_000;
    private static final int MAX_REQUEST = 1 << 20;
    private static final Set<Integer> STATUSES = Set.of(Wire.OK, Wire.NO_SEGMENT, Wire.OUT_OF_RANGE, Wire.FAILED,
            Wire.ACCESS_DENIED);
    private static final Queue<Throwable> DIED = new ConcurrentLinkedQueue<>();
    /** Held: the logger the server writes a line per refused frame to, quiet while fuzzing. */
    private static final Logger QUIET = Logger.getLogger(SegmentServer.class.getName());
    private static SegmentServer server;

    private static synchronized SegmentServer server() {
        if (server == null) {
            QUIET.setLevel(Level.OFF);
            Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
                DIED.add(e);
                if (previous != null) {
                    previous.uncaughtException(t, e);
                }
            });
            try {
                server = new SegmentServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), MAX_REQUEST, 0,
                        true, () -> TcpProtocolExamples.SERVER_CLOCK_MS, null);
                server.expose(TcpProtocolExamples.SEGMENT, Arena.global().allocate(TcpProtocolExamples.SEGMENT_BYTES));
                server.expose(TcpProtocolExamples.GRANTED_SEGMENT,
                        Arena.global().allocate(TcpProtocolExamples.SEGMENT_BYTES), TcpProtocolExamples.GRANT_KEY);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return server;
    }

    @FuzzTest
    void connection(byte[] input) throws IOException {
        checkNoThreadDied("an earlier input");
        // the harness's own connection to the server under test (Jazzer's SSRF detector allows none by default)
        int port = server().port();
        try (var loopbackOnly = BugDetectors.allowNetworkConnections((host, p) -> p == port);
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(HANG_MS);
            try {
                s.getOutputStream().write(input);
                s.shutdownOutput();
            } catch (SocketException closedAlready) {
                // the server refused what came first and closed before the rest arrived
            }
            readResponsesUntilClosed(input, new DataInputStream(new BufferedInputStream(s.getInputStream())));
        }
        checkNoThreadDied("this input");
    }

    /**
     * Walks the requests of the input as the protocol defines them and reads the answer each must
     * get: a header with a known status, this request's id and length (0 for a refusal), a READ's
     * payload after it; after a refused WRITE, or where the input stops being well-formed, the
     * close. A WRITE whose payload the input cuts short gets no answer, only the close.
     */
    private static void readResponsesUntilClosed(byte[] input, DataInputStream in) throws IOException {
        ByteBuffer requests = ByteBuffer.wrap(input);
        try {
            while (requests.remaining() >= Wire.REQUEST_HEADER) { // the server reads 33 bytes first, for either version
                int magic = requests.getInt();
                byte version = requests.get();
                byte op = requests.get();
                int nameLength = Short.toUnsignedInt(requests.getShort());
                long id = requests.getLong();
                long offset = requests.getLong();
                long length = requests.getLong();
                if (magic != Wire.MAGIC || version != Wire.VERSION && version != Wire.VERSION_1
                        || op != Wire.READ && op != Wire.WRITE || nameLength == 0 || nameLength > Wire.MAX_NAME
                        || offset < 0 || length <= 0 || length > MAX_REQUEST) {
                    break;
                }
                int grantLength = version == Wire.VERSION ? Byte.toUnsignedInt(requests.get()) : 0;
                if (grantLength != 0 && grantLength != Wire.GRANT_BYTES || requests.remaining() < nameLength + grantLength) {
                    break;
                }
                requests.position(requests.position() + nameLength);
                if (grantLength > 0) {
                    byte grantOp = requests.get();
                    long grantOffset = requests.getLong();
                    long grantRange = requests.getLong();
                    requests.position(requests.position() + 8 + 16);
                    if (grantOp != Wire.READ && grantOp != Wire.WRITE || grantOffset < 0 || grantRange <= 0) {
                        break;
                    }
                }
                boolean payloadCut = op == Wire.WRITE && requests.remaining() < length;
                int status;
                try {
                    assertTrue(in.readInt() == Wire.MAGIC, "a response starts with the magic");
                    status = in.readInt();
                } catch (EOFException closed) {
                    assertTrue(payloadCut, "closed without answering a well-formed request");
                    return;
                }
                assertTrue(STATUSES.contains(status), "unknown status " + status);
                assertTrue(in.readLong() == id, "the response carries its request's id");
                assertTrue(in.readLong() == (status == Wire.OK ? length : 0), "the response's length");
                if (op == Wire.WRITE && status != Wire.OK) {
                    break; // its payload has nowhere to go: the server closes
                }
                if (op == Wire.WRITE) {
                    requests.position(requests.position() + (int) length);
                } else if (status == Wire.OK) {
                    in.skipNBytes(length);
                }
            }
            assertTrue(in.read() == -1, "the server closes after the last request");
        } catch (SocketTimeoutException e) {
            fail("the server neither answered nor closed within " + HANG_MS + " ms");
        } catch (SocketException reset) {
            // closed with unread input: a reset instead of an orderly close
        }
    }

    private static void checkNoThreadDied(String when) {
        Throwable died = DIED.poll();
        if (died != null) {
            throw new AssertionError("a serving thread died of an exception after " + when, died);
        }
    }
}
