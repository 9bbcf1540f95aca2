package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.master.DataGrant;

/**
 * A stalled requester's late WRITE: sent while its grant was valid, it waits in the server's
 * socket buffer (the server is busy with the request before it) until the grant has expired; the
 * server checks the grant when it reads the request, refuses it, and the target bytes stay as they were.
 */
@Timeout(60)
class StaleWriteTest {
    @Test
    void aWriteWhoseGrantExpiresInTheSocketBufferIsRefusedWhenRead() throws Exception {
        long now = GrantCheckTest.NOW;
        TestClock clock = new TestClock(now);
        byte[] before = "keep".getBytes();
        try (Arena arena = Arena.ofShared();
                SegmentServer server = new SegmentServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                        1 << 20, 0, true, clock, null);
                Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(20_000);
            MemorySegment memory = arena.allocate(64 << 10);
            memory.asSlice(GrantCheckTest.AT, before.length).copyFrom(MemorySegment.ofArray(before));
            server.expose(GrantCheckTest.SEG, memory, GrantCheckTest.KEY);

            clock.hold(); // the server stops at the grant check of the first request
            s.getOutputStream().write(RawFrames.read(1, GrantCheckTest.SEG, GrantCheckTest.AT, before.length,
                    DataGrant.sign(GrantCheckTest.KEY, GrantCheckTest.SEG, false, GrantCheckTest.AT, 4096, now + 60_000)));
            assertTrue(clock.awaitHeldReading(20_000), "the server reached the first request's check");
            DataGrant shortLived = DataGrant.sign(GrantCheckTest.KEY, GrantCheckTest.SEG, true, GrantCheckTest.AT, 4096,
                    now + 1_000);
            // valid now, and sent whole: it waits in the server's socket buffer
            s.getOutputStream().write(RawFrames.write(2, GrantCheckTest.SEG, GrantCheckTest.AT, "LATE".getBytes(),
                    shortLived));
            clock.set(now + 1_000); // the grant expires before the server gets to it
            clock.release();

            assertEquals(new RawFrames.Response(Wire.OK, 1, before.length), RawFrames.Response.read(s.getInputStream()));
            assertArrayEquals(before, s.getInputStream().readNBytes(before.length));
            assertEquals(new RawFrames.Response(Wire.ACCESS_DENIED, 2, 0), RawFrames.Response.read(s.getInputStream()));
            assertTrue(GrantCheckTest.closedByPeer(s.getInputStream()));
            byte[] after = new byte[before.length];
            MemorySegment.copy(memory, java.lang.foreign.ValueLayout.JAVA_BYTE, GrantCheckTest.AT, after, 0, after.length);
            assertArrayEquals(before, after, "the late WRITE left the target as it was");
            assertEquals(1L, server.denied().get("expired"));
        }
    }
}
