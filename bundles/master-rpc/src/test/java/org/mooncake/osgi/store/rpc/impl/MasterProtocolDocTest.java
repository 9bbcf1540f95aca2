package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.rpc.impl.MasterProtocolExamples.Example;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The master RPC examples of {@code docs/protocol.md} are what the Java encoder sends: each
 * documented frame equals, byte for byte, the same message built by the production classes; the
 * server, sent the documented requests, answers the documented responses (its clock aside: the
 * documented {@code serverTimeMs} is fixed); and the remote master client sends the documented
 * requests (its own request id aside) and reads the documented responses back into the values the
 * document states.
 */
@Timeout(60)
class MasterProtocolDocTest {
    private static final int MAX_FRAME = 1 << 20;
    private static final long TIMEOUT_MS = 5_000;

    private final ProtocolDocument doc = ProtocolDocument.load();
    private final ExampleMaster master = new ExampleMaster();
    private final MasterRpcServer server;

    MasterProtocolDocTest() throws IOException {
        server = new MasterRpcServer(config(), master);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    @Test
    void everyDocumentedFrameIsAnExampleAndEveryExampleIsDocumented() {
        Set<String> expected = new LinkedHashSet<>();
        for (Example e : MasterProtocolExamples.all()) {
            expected.add(e.requestFrame());
            expected.add(e.responseFrame());
        }
        assertEquals(expected, doc.frames("master-").keySet());
    }

    @Test
    void documentedFramesAreWhatTheEncoderWrites() {
        for (Example e : MasterProtocolExamples.all()) {
            assertFrame(e.requestFrame(), MasterProtocolExamples.frame(e.request()));
            assertFrame(e.responseFrame(), MasterProtocolExamples.frame(e.response()));
        }
    }

    /** Decoded and encoded again, each documented frame gives back its bytes; its fields are the example's. */
    @Test
    void documentedFramesDecodeToTheirMessages() throws IOException {
        for (Example e : MasterProtocolExamples.all()) {
            Messages.Request request = Messages.CBOR.readValue(body(doc.frame(e.requestFrame())), Messages.Request.class);
            assertEquals(List.of(e.request().id(), e.request().op(), e.request().deadlineMs(), e.request().timeoutMs()),
                    List.of(request.id(), request.op(), request.deadlineMs(), request.timeoutMs()), e.requestFrame());
            assertFrame(e.requestFrame(), MasterProtocolExamples.frame(request));
            Messages.Response response = Messages.CBOR.readValue(body(doc.frame(e.responseFrame())),
                    Messages.Response.class);
            assertEquals(Arrays.asList(e.response().id(), e.response().code(), e.response().message(),
                    e.response().serverTimeMs(), e.response().maxBatchKeys()),
                    Arrays.asList(response.id(), response.code(), response.message(), response.serverTimeMs(),
                            response.maxBatchKeys()), e.responseFrame());
            assertFrame(e.responseFrame(), MasterProtocolExamples.frame(response));
        }
    }

    @Test
    void theServerAnswersTheDocumentedRequestsWithTheDocumentedResponses() throws IOException {
        try (Socket s = connect()) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            for (Example e : MasterProtocolExamples.CONNECTION) {
                s.getOutputStream().write(doc.frame(e.requestFrame()));
                assertFrame(e.responseFrame(), atDocumentedTime(readFrame(in)));
            }
        }
        List<ExampleMaster.Call> expected = MasterProtocolExamples.CONNECTION.stream()
                .map(Example::serverCall).filter(c -> c != null).toList();
        assertEquals(expected, master.calls(), "what the server decoded from the documented requests");
    }

    @Test
    void aRefusedHelloIsAnsweredAndTheConnectionClosed() throws IOException {
        try (Socket s = connect()) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            s.getOutputStream().write(doc.frame(MasterProtocolExamples.REFUSED_HELLO.requestFrame()));
            assertFrame(MasterProtocolExamples.REFUSED_HELLO.responseFrame(), atDocumentedTime(readFrame(in)));
            assertEquals(-1, in.read(), "the server closes the connection after refusing HELLO");
        }
    }

    /** Generic CBOR encoders write maps with their length and keys in any order: the server takes both. */
    @Test
    void definiteLengthMapsInAnyKeyOrderAreAccepted() throws IOException {
        Example hello = MasterProtocolExamples.CONNECTION.get(0);
        Example heartbeat = MasterProtocolExamples.CONNECTION.get(1);
        ObjectNode request = Messages.CBOR.createObjectNode();
        request.set("args", heartbeat.request().args());
        request.put("timeoutMs", heartbeat.request().timeoutMs());
        request.put("deadlineMs", heartbeat.request().deadlineMs());
        request.put("op", heartbeat.request().op());
        request.put("id", heartbeat.request().id());
        byte[] frame = MasterProtocolExamples.frame(request);
        assertEquals(0xa5, Byte.toUnsignedInt(frame[8]), "a map of 5 entries, length given");
        try (Socket s = connect()) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            s.getOutputStream().write(doc.frame(hello.requestFrame()));
            assertFrame(hello.responseFrame(), atDocumentedTime(readFrame(in)));
            s.getOutputStream().write(frame);
            assertFrame(heartbeat.responseFrame(), atDocumentedTime(readFrame(in)));
        }
    }

    /**
     * A stand-in master that records the client's frames and answers each with the documented
     * response of the same operation (under the client's request id).
     */
    @Test
    void theClientSendsTheDocumentedRequestsAndReadsTheDocumentedResponses() throws Exception {
        List<Example> called = MasterProtocolExamples.CONNECTION.stream()
                .filter(e -> e.name().equals("hello") || e.clientCall() != null).toList();
        BlockingQueue<byte[]> sent = new LinkedBlockingQueue<>();
        try (ServerSocket fake = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> answer(fake, called, sent));
            // a client clock that reads the master's time of the examples: their lease ends come back unchanged
            try (RemoteMasterService remote = new RemoteMasterService(
                    new InetSocketAddress(fake.getInetAddress(), fake.getLocalPort()), TIMEOUT_MS, MAX_FRAME, null,
                    InstantSource.fixed(Instant.ofEpochMilli(ExampleMaster.SERVER_TIME_MS)))) {
                for (Example e : called) {
                    if (e.clientCall() == null) {
                        continue; // HELLO: sent by the first call
                    }
                    if (e.clientResult() instanceof ErrorCode code) {
                        StoreException x = assertThrows(StoreException.class, () -> e.clientCall().apply(remote));
                        assertEquals(code, x.errorCode(), e.name());
                        assertEquals(e.response().message(), x.detail(), e.name());
                    } else {
                        assertEquals(e.clientResult(), e.clientCall().apply(remote), e.name());
                    }
                    if (e == called.get(1)) {
                        assertSent(called.get(0), sent.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS));
                    }
                    assertSent(e, sent.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS));
                }
            }
        }
    }

    /** The client's frame is the documented one but for its own request id. */
    private void assertSent(Example e, byte[] frame) throws IOException {
        assertTrue(frame != null && frame.length > 0, e.name() + " was not sent, or the stand-in master failed");
        Messages.Request got = Messages.CBOR.readValue(body(frame), Messages.Request.class);
        assertEquals(HexFormat.of().formatHex(frame), HexFormat.of().formatHex(MasterProtocolExamples.frame(got)),
                "decoding and encoding the client's " + e.name() + " gives back its bytes");
        assertEquals(List.of(0L, TIMEOUT_MS), List.of(got.deadlineMs(), got.timeoutMs()),
                "a client sends its timeout and no wall-clock deadline");
        assertFrame(e.requestFrame(), MasterProtocolExamples.frame(
                new Messages.Request(e.request().id(), got.op(), got.deadlineMs(), got.timeoutMs(), got.args())));
    }

    private void answer(ServerSocket fake, List<Example> examples, BlockingQueue<byte[]> sent) {
        try (Socket s = fake.accept(); OutputStream out = s.getOutputStream()) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            for (Example e : examples) {
                byte[] frame = readFrame(in);
                sent.add(frame);
                long id = Messages.CBOR.readValue(body(frame), Messages.Request.class).id();
                Messages.Response documented = Messages.CBOR.readValue(body(doc.frame(e.responseFrame())),
                        Messages.Response.class);
                out.write(MasterProtocolExamples.frame(documented.withId(id)));
                out.flush();
            }
        } catch (IOException e) {
            sent.add(new byte[0]);
        }
    }

    private void assertFrame(String name, byte[] actual) {
        byte[] documented = doc.frame(name);
        if (!Arrays.equals(documented, actual)) {
            fail("frame " + name + " of " + ProtocolDocument.RELATIVE_PATH + " is not what the encoder writes; it writes:\n"
                    + "<!-- frame: " + name + " -->\n```hex\n" + CborAnnotator.frame(actual) + "```\n"
                    + "documented: " + HexFormat.of().formatHex(documented) + "\nencoded:    "
                    + HexFormat.of().formatHex(actual));
        }
    }

    /**
     * A response of the real server with its time replaced by the examples' master time, once it is
     * checked to be the server's clock when it answered (the documented bytes hold a fixed time).
     */
    private static byte[] atDocumentedTime(byte[] frame) throws IOException {
        Messages.Response r = Messages.CBOR.readValue(body(frame), Messages.Response.class);
        long now = System.currentTimeMillis();
        assertTrue(r.serverTimeMs() > now - 60_000 && r.serverTimeMs() <= now,
                "serverTimeMs is the master's clock when it answered: " + r.serverTimeMs() + ", now " + now);
        return MasterProtocolExamples.frame(r.at(ExampleMaster.SERVER_TIME_MS));
    }

    private static byte[] body(byte[] frame) {
        return Arrays.copyOfRange(frame, 8, frame.length);
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        try {
            return MasterProtocolExamples.frameOfBody(Frames.read(in, MAX_FRAME));
        } catch (EOFException e) {
            throw new EOFException("the connection closed before a whole frame arrived");
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout((int) TIMEOUT_MS);
        return s;
    }

    private static MasterRpcServer.Config config() {
        return ServerConfig.plain(0, MAX_FRAME);
    }
}
