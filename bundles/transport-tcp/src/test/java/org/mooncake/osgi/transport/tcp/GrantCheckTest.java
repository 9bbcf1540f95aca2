package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;

/**
 * A segment exposed with a grant key, spoken to in raw frames: every WRITE whose grant does not
 * permit it exactly (none, forged, another segment's, another op's, another range's, expired,
 * another key's) is answered ACCESS_DENIED, writes nothing, and is counted by reason; a permitted
 * one lands. Segments exposed without a key, and servers with grants.checked=false, check nothing.
 */
@Timeout(60)
class GrantCheckTest {
    static final long NOW = 1_800_000_000_000L;
    static final GrantKey KEY = new GrantKey(bytes(32, 1));
    static final GrantKey OTHER_KEY = new GrantKey(bytes(32, 2));
    static final String SEG = "seg-a";
    static final String OTHER_SEG = "seg-b";
    static final int AT = 4096;
    static final byte[] WORLD = "world".getBytes(StandardCharsets.US_ASCII);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory = arena.allocate(64 << 10);
    private final MemorySegment otherMemory = arena.allocate(64 << 10);
    private final MemorySegment openMemory = arena.allocate(64 << 10);
    private final TestClock clock = new TestClock(NOW);
    private final SegmentServer server;

    GrantCheckTest() throws IOException {
        server = new SegmentServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1 << 20, 0, true, clock,
                null);
        server.expose(SEG, memory, KEY);
        server.expose(OTHER_SEG, otherMemory, OTHER_KEY);
        server.expose("open", openMemory);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        arena.close();
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + seed);
        }
        return b;
    }

    static DataGrant writeGrant() {
        return DataGrant.sign(KEY, SEG, true, AT, 4096, NOW + 30_000);
    }

    static Stream<Arguments> refusedWrites() {
        DataGrant good = writeGrant();
        byte[] flipped = good.mac();
        flipped[0] ^= 1;
        return Stream.of(
                Arguments.of("no grant", RawFrames.write(1, SEG, AT, WORLD, null), "no_grant"),
                Arguments.of("a version 1 frame (no grant)", RawFrames.requestV1(2, 1, SEG, AT, WORLD, WORLD.length),
                        "no_grant"),
                Arguments.of("forged: mac flipped", RawFrames.write(1, SEG, AT, WORLD,
                        new DataGrant(true, AT, 4096, NOW + 30_000, flipped)), "forged"),
                Arguments.of("forged: range widened under the same mac", RawFrames.write(1, SEG, AT, WORLD,
                        new DataGrant(true, 0, 65536, NOW + 30_000, good.mac())), "forged"),
                Arguments.of("a grant for another segment", RawFrames.write(1, SEG, AT, WORLD,
                        DataGrant.sign(OTHER_KEY, OTHER_SEG, true, AT, 4096, NOW + 30_000)), "forged"),
                Arguments.of("a READ grant used for a WRITE", RawFrames.write(1, SEG, AT, WORLD,
                        DataGrant.sign(KEY, SEG, false, AT, 4096, NOW + 30_000)), "wrong_operation"),
                Arguments.of("a range before the grant's", RawFrames.write(1, SEG, AT - 1, WORLD, good), "out_of_range"),
                Arguments.of("a range past the grant's end", RawFrames.write(1, SEG, AT + 4092, WORLD, good),
                        "out_of_range"),
                Arguments.of("an expired grant", RawFrames.write(1, SEG, AT, WORLD,
                        DataGrant.sign(KEY, SEG, true, AT, 4096, NOW)), "expired"),
                Arguments.of("a grant signed with another key", RawFrames.write(1, SEG, AT, WORLD,
                        DataGrant.sign(OTHER_KEY, SEG, true, AT, 4096, NOW + 30_000)), "forged"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedWrites")
    void aWriteWithoutAPermittingGrantIsDeniedAndWritesNothing(String what, byte[] frame, String reason)
            throws IOException {
        Map<String, Long> before = server.denied();
        try (Socket s = connect()) {
            s.getOutputStream().write(frame);
            RawFrames.Response r = RawFrames.Response.read(s.getInputStream());
            assertEquals(new RawFrames.Response(Wire.ACCESS_DENIED, 1, 0), r, what);
            assertTrue(closedByPeer(s.getInputStream()), "the server closes after refusing a WRITE");
        }
        assertEquals(-1, memory.mismatch(arena.allocate(memory.byteSize())), "nothing was written: " + what);
        assertEquals(before.get(reason) + 1, server.denied().get(reason), "counted as " + reason);
    }

    @Test
    void aPermittedWriteLandsAndAPermittedReadReturnsIt() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawFrames.write(1, SEG, AT + 100, WORLD, writeGrant()));
            assertEquals(new RawFrames.Response(Wire.OK, 1, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            s.getOutputStream().write(RawFrames.read(2, SEG, AT + 100, WORLD.length,
                    DataGrant.sign(KEY, SEG, false, AT + 100, WORLD.length, NOW + 1)));
            assertEquals(new RawFrames.Response(Wire.OK, 2, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            assertArrayEquals(WORLD, s.getInputStream().readNBytes(WORLD.length));
        }
        byte[] landed = new byte[WORLD.length];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, AT + 100, landed, 0, landed.length);
        assertArrayEquals(WORLD, landed);
    }

    /** A READ is denied without closing: the connection goes on, and nothing of the segment leaves. */
    @Test
    void aDeniedReadLeavesTheConnectionOpen() throws IOException {
        memory.asSlice(AT, WORLD.length).copyFrom(MemorySegment.ofArray(WORLD));
        try (Socket s = connect()) {
            s.getOutputStream().write(RawFrames.read(1, SEG, AT, WORLD.length, writeGrant()));
            assertEquals(new RawFrames.Response(Wire.ACCESS_DENIED, 1, 0), RawFrames.Response.read(s.getInputStream()));
            s.getOutputStream().write(RawFrames.read(2, SEG, AT, WORLD.length, null));
            assertEquals(new RawFrames.Response(Wire.ACCESS_DENIED, 2, 0), RawFrames.Response.read(s.getInputStream()));
            s.getOutputStream().write(RawFrames.read(3, "open", 0, 4, null));
            assertEquals(new RawFrames.Response(Wire.OK, 3, 4), RawFrames.Response.read(s.getInputStream()));
        }
    }

    @Test
    void segmentsWithoutAKeyServeVersion1AndVersion2FramesWithoutGrants() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawFrames.requestV1(2, 1, "open", 10, WORLD, WORLD.length));
            assertEquals(new RawFrames.Response(Wire.OK, 1, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            s.getOutputStream().write(RawFrames.requestV1(1, 2, "open", 10, null, WORLD.length));
            assertEquals(new RawFrames.Response(Wire.OK, 2, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            assertArrayEquals(WORLD, s.getInputStream().readNBytes(WORLD.length));
            s.getOutputStream().write(RawFrames.read(3, "open", 10, WORLD.length, null));
            assertEquals(new RawFrames.Response(Wire.OK, 3, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            assertArrayEquals(WORLD, s.getInputStream().readNBytes(WORLD.length));
        }
    }

    @Test
    void withGrantsUncheckedAKeyedSegmentServesEveryRequest() throws IOException {
        try (SegmentServer unchecked = new SegmentServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                1 << 20, 0, false, clock, null);
                Socket s = new Socket(InetAddress.getLoopbackAddress(), unchecked.port())) {
            unchecked.expose(SEG, memory, KEY);
            s.getOutputStream().write(RawFrames.write(1, SEG, AT, WORLD, null));
            assertEquals(new RawFrames.Response(Wire.OK, 1, WORLD.length), RawFrames.Response.read(s.getInputStream()));
            unchecked.withdraw(SEG);
        }
        byte[] landed = new byte[WORLD.length];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, AT, landed, 0, landed.length);
        assertArrayEquals(WORLD, landed);
    }

    /** A peer that sends a hundred refused requests gets each counted, and one WARNING line naming the reason. */
    @Test
    void deniedRequestsAreCountedEachAndLoggedRarely() throws IOException {
        Logger jul = Logger.getLogger(SegmentServer.class.getName());
        List<LogRecord> lines = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public synchronized void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    lines.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level level = jul.getLevel(); // another test class in this JVM may have quietened it
        jul.setLevel(Level.INFO);
        jul.addHandler(capture);
        try (Socket s = connect()) {
            for (int i = 0; i < 100; i++) {
                s.getOutputStream().write(RawFrames.read(i, SEG, AT, 8, null));
                assertEquals(Wire.ACCESS_DENIED, RawFrames.Response.read(s.getInputStream()).status());
            }
        } finally {
            jul.removeHandler(capture);
            jul.setLevel(level);
        }
        assertEquals(100L, server.denied().get("no_grant"));
        synchronized (capture) {
            assertEquals(1, lines.size(), "one line for 100 denials within " + CountedWarnings.EVERY_SECONDS + " s");
            String line = new java.util.logging.SimpleFormatter().formatMessage(lines.getFirst());
            assertTrue(line.contains("no grant") && line.contains(SEG), line);
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(20_000);
        return s;
    }

    /** An end of stream, or a reset when the server closed with the refused payload unread. */
    static boolean closedByPeer(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }
}
