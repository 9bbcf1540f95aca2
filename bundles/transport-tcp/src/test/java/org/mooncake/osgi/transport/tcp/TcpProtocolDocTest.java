package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.transport.tcp.TcpProtocolExamples.Example;

/**
 * The tcp transport examples of {@code docs/protocol.md} are what {@link Wire} writes and what the
 * segment server answers, byte for byte; {@link Wire} reads them back into the documented values;
 * and the documented checksums are what {@link Checksums} computes.
 */
@Timeout(60)
class TcpProtocolDocTest {
    /** The documented object of the chunk example: byte i is i mod 251, in chunks of 4096 bytes. */
    private static final int CHUNKED_OBJECT_BYTES = 8192;
    private static final int CHUNK_BYTES = 4096;

    private final ProtocolDocument doc = ProtocolDocument.load();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment = arena.allocate(TcpProtocolExamples.SEGMENT_BYTES);
    private final MemorySegment granted = arena.allocate(TcpProtocolExamples.SEGMENT_BYTES);
    private final SegmentServer server;

    TcpProtocolDocTest() throws IOException {
        MemorySegment.copy(MemorySegment.ofArray(TcpProtocolExamples.HELLO), 0, segment, TcpProtocolExamples.HELLO_AT,
                TcpProtocolExamples.HELLO.length);
        server = new SegmentServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1 << 20, 0, true,
                () -> TcpProtocolExamples.SERVER_CLOCK_MS, null);
        server.expose(TcpProtocolExamples.SEGMENT, segment);
        server.expose(TcpProtocolExamples.GRANTED_SEGMENT, granted, TcpProtocolExamples.GRANT_KEY);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        arena.close();
    }

    @Test
    void everyDocumentedFrameIsAnExampleAndEveryExampleIsDocumented() {
        Set<String> expected = new LinkedHashSet<>();
        for (Example e : TcpProtocolExamples.all()) {
            expected.add(e.requestFrame());
            expected.add(e.responseFrame());
        }
        assertEquals(expected, doc.frames("tcp-").keySet());
        assertEquals(Set.of("empty", "hello", "combined-chunks"), doc.checksums().keySet());
    }

    @Test
    void documentedFramesAreWhatTheEncoderWrites() throws IOException {
        try (Pair pair = Pair.open()) {
            for (Example e : TcpProtocolExamples.all()) {
                Wire.writeRequest(Link.plain(pair.writer), e.request(),
                        e.requestPayload() == null ? null : MemorySegment.ofArray(e.requestPayload()));
                assertRequest(e.requestFrame(), pair.read(doc.frame(e.requestFrame()).length));
                Wire.writeResponse(Link.plain(pair.writer), e.status(), e.request().requestId(), e.responseLength(),
                        e.responsePayload() == null ? null : MemorySegment.ofArray(e.responsePayload()));
                assertResponse(e.responseFrame(), pair.read(doc.frame(e.responseFrame()).length));
            }
            assertEquals(0x5a, pair.nextByteAfterMarker((byte) 0x5a), "the encoder wrote more than the documented frames");
        }
    }

    @Test
    void documentedFramesDecodeToTheirValues() throws IOException {
        try (Pair pair = Pair.open()) {
            for (Example e : TcpProtocolExamples.all()) {
                pair.send(doc.frame(e.requestFrame()));
                assertEquals(e.request(), Wire.readRequest(Link.plain(pair.reader), 1 << 20), e.requestFrame());
                byte[] payload = e.requestPayload() == null ? new byte[0] : e.requestPayload();
                assertArrayEquals(payload, pair.read(payload.length), e.requestFrame() + " payload");
                pair.send(doc.frame(e.responseFrame()));
                assertEquals(e.status(), Wire.readResponse(Link.plain(pair.reader), e.request().requestId(), e.request().length()),
                        e.responseFrame());
                byte[] read = e.responsePayload() == null ? new byte[0] : e.responsePayload();
                assertArrayEquals(read, pair.read(read.length), e.responseFrame() + " payload");
            }
        }
    }

    @Test
    void theServerAnswersTheDocumentedRequestsWithTheDocumentedResponses() throws IOException {
        try (SocketChannel ch = connect()) {
            for (Example e : TcpProtocolExamples.CONNECTION) {
                Wire.writeFully(ch, ByteBuffer.wrap(doc.frame(e.requestFrame())));
                assertResponse(e.responseFrame(), read(ch, doc.frame(e.responseFrame()).length));
            }
        }
        for (MemorySegment target : List.of(segment, granted)) {
            byte[] written = new byte[TcpProtocolExamples.WORLD.length];
            MemorySegment.copy(target, ValueLayout.JAVA_BYTE, TcpProtocolExamples.WORLD_AT, written, 0, written.length);
            assertArrayEquals(TcpProtocolExamples.WORLD, written, "the documented WRITEs reached their segments");
        }
    }

    @Test
    void aRefusedWriteIsAnsweredAndTheConnectionClosed() throws IOException {
        Example e = TcpProtocolExamples.REFUSED_WRITE;
        try (SocketChannel ch = connect()) {
            Wire.writeFully(ch, ByteBuffer.wrap(doc.frame(e.requestFrame())));
            assertResponse(e.responseFrame(), read(ch, doc.frame(e.responseFrame()).length));
            assertTrue(closedByPeer(ch), "the server closes the connection after refusing a WRITE");
        }
    }

    /**
     * Whether the peer closed: an end of stream, or a reset when it closed with the refused
     * payload still unread (which of the two depends on whether the payload had arrived).
     */
    private static boolean closedByPeer(SocketChannel ch) {
        try {
            return ch.read(ByteBuffer.allocate(1)) == -1;
        } catch (java.net.SocketException reset) {
            return true;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The documented grant is store-api's golden vector, whose mac the master computes. */
    @Test
    void theDocumentedGrantIsTheGoldenVector() {
        assertEquals("d4868e5f2d591c6c1a4fbc224ec60b7b", HexFormat.of().formatHex(TcpProtocolExamples.WRITE_GRANT.mac()));
    }

    @Test
    void documentedChecksumsAreWhatTheStoreComputes() {
        for (Map.Entry<String, ProtocolDocument.Checksum> c : doc.checksums().entrySet()) {
            assertEquals(HexFormat.of().toHexDigits(c.getValue().xxh3()),
                    HexFormat.of().toHexDigits(Checksums.of(MemorySegment.ofArray(c.getValue().input()))),
                    "XXH3-64 of checksum example " + c.getKey());
        }
    }

    /** The object's checksum is the XXH3-64 of its chunk checksums as little-endian words: the documented input. */
    @Test
    void theCombinedChunksExampleIsTheChunkChecksumsOfTheDocumentedObject() {
        byte[] object = new byte[CHUNKED_OBJECT_BYTES];
        for (int i = 0; i < object.length; i++) {
            object[i] = (byte) (i % 251);
        }
        long[] sums = Checksums.ofChunks(MemorySegment.ofArray(object), CHUNK_BYTES);
        ByteBuffer words = ByteBuffer.allocate(sums.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long s : sums) {
            words.putLong(s);
        }
        ProtocolDocument.Checksum documented = doc.checksums().get("combined-chunks");
        assertEquals(HexFormat.of().formatHex(words.array()), HexFormat.of().formatHex(documented.input()));
        assertEquals(documented.xxh3(), Checksums.combine(new ChunkChecksums(CHUNK_BYTES, sums)));
    }

    private void assertRequest(String name, byte[] actual) {
        assertFrame(name, actual, TcpProtocolExamples.annotateRequest(actual));
    }

    private void assertResponse(String name, byte[] actual) {
        assertFrame(name, actual, TcpProtocolExamples.annotateResponse(actual));
    }

    private void assertFrame(String name, byte[] actual, String annotated) {
        byte[] documented = doc.frame(name);
        if (!Arrays.equals(documented, actual)) {
            fail("frame " + name + " of " + ProtocolDocument.RELATIVE_PATH + " is not what is sent; it is:\n"
                    + "<!-- frame: " + name + " -->\n```hex\n" + annotated + "```\ndocumented: "
                    + HexFormat.of().formatHex(documented) + "\nsent:       " + HexFormat.of().formatHex(actual));
        }
    }

    private SocketChannel connect() throws IOException {
        return SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
    }

    /** Reads {@code n} bytes, fewer if the peer closes first (so a short frame shows in the comparison). */
    private static byte[] read(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining() && ch.read(b) >= 0) {
            // until the frame is whole or the peer closed
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /** Two ends of one loopback connection: what {@code writer} sends, {@code reader} receives. */
    private record Pair(SocketChannel writer, SocketChannel reader) implements AutoCloseable {
        static Pair open() throws IOException {
            try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel writer = SocketChannel.open(listener.getLocalAddress());
                writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
                return new Pair(writer, listener.accept());
            }
        }

        void send(byte[] bytes) throws IOException {
            Wire.writeFully(writer, ByteBuffer.wrap(bytes));
        }

        byte[] read(int n) throws IOException {
            return TcpProtocolDocTest.read(reader, n);
        }

        /** Sends a marker byte and reads the next byte: the marker, unless something came before it. */
        int nextByteAfterMarker(byte marker) throws IOException {
            send(new byte[] {marker});
            return read(1)[0];
        }

        @Override
        public void close() throws IOException {
            writer.close();
            reader.close();
        }
    }
}
