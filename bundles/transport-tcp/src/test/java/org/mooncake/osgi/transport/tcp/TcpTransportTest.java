package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** Two transports on loopback: "owner" exposes a segment, "peer" reads and writes it. */
class TcpTransportTest {
    static TcpTransport.Config config(int chunk) {
        return TcpTransport.loopback(4, chunk, 5_000);
    }

    private final Arena arena = Arena.ofShared();
    private final TcpTransport owner;
    private final TcpTransport peer;
    private final MemorySegment segment = arena.allocate(32 << 20, 64);
    private final SegmentEndpoint endpoint;

    TcpTransportTest() throws IOException {
        owner = new TcpTransport(config(1 << 20));
        peer = new TcpTransport(config(1 << 20));
        endpoint = owner.expose("seg", segment);
    }

    @AfterEach
    void close() {
        peer.close();
        owner.close();
        arena.close();
    }

    private TransferStatus one(TransferOp op, MemorySegment local, SegmentEndpoint ep, long offset) {
        return peer.submit(List.of(new TransferRequest(op, local, ep, offset))).toCompletableFuture().join().getFirst();
    }

    @Test
    void largeTransfersAreSlicedOverSeveralConnectionsAndArriveIntact() {
        byte[] data = new byte[10 * (1 << 20) + 12345];
        new Random(1).nextBytes(data);
        assertTrue(one(TransferOp.WRITE, MemorySegment.ofArray(data), endpoint, 4096).completed());
        assertEquals(-1, MemorySegment.ofArray(data).mismatch(segment.asSlice(4096, data.length)));
        MemorySegment back = arena.allocate(data.length);
        TransferStatus read = one(TransferOp.READ, back, endpoint, 4096);
        assertTrue(read.completed(), read.error());
        assertEquals(data.length, read.bytes());
        assertEquals(-1, back.mismatch(MemorySegment.ofArray(data)));
    }

    @Test
    void aBatchReportsEachRequestAndOneFailureSparesTheOthers() {
        MemorySegment a = arena.allocate(100);
        a.fill((byte) 7);
        List<TransferStatus> s = peer.submit(List.of(
                new TransferRequest(TransferOp.WRITE, a, endpoint, 0),
                new TransferRequest(TransferOp.WRITE, a, new SegmentEndpoint("tcp", owner.address(), "nope"), 0),
                new TransferRequest(TransferOp.READ, arena.allocate(100), endpoint, (32 << 20) - 50))).toCompletableFuture()
                .join();
        assertTrue(s.get(0).completed());
        assertFalse(s.get(1).completed());
        assertTrue(s.get(1).error().contains("not served"), s.get(1).error());
        assertFalse(s.get(2).completed());
        assertTrue(s.get(2).error().contains("outside"), s.get(2).error());
        assertEquals((byte) 7, segment.get(ValueLayout.JAVA_BYTE, 99));
        // the connections survived the refusals
        assertTrue(one(TransferOp.READ, arena.allocate(10), endpoint, 0).completed());
    }

    @Test
    void aWithdrawnSegmentOrAVanishedPeerFailsCleanly() {
        owner.withdraw("seg");
        assertFalse(one(TransferOp.READ, arena.allocate(10), endpoint, 0).completed());
        owner.close();
        TransferStatus gone = one(TransferOp.READ, arena.allocate(10), endpoint, 0);
        assertFalse(gone.completed());
        assertFalse(gone.error().contains("timed out"), gone.error());
        assertFalse(one(TransferOp.READ, arena.allocate(10), new SegmentEndpoint("tcp", "no-port", "seg"), 0).completed());
    }

    @Test
    void garbageOnOneConnectionClosesItAndEveryoneElseIsServed() throws IOException {
        int port = Integer.parseInt(owner.address().substring(owner.address().lastIndexOf(':') + 1));
        Random rnd = new Random(42);
        for (int i = 0; i < 50; i++) {
            try (SocketChannel hostile = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
                byte[] junk = new byte[8 + rnd.nextInt(200)];
                rnd.nextBytes(junk);
                if (i % 2 == 0) { // a valid magic and version, then nonsense
                    ByteBuffer.wrap(junk).putInt(0, Wire.MAGIC);
                    junk[4] = Wire.VERSION;
                }
                hostile.write(ByteBuffer.wrap(junk));
                hostile.shutdownOutput();
                ByteBuffer rest = ByteBuffer.allocate(64);
                while (hostile.read(rest) >= 0) {
                    rest.clear(); // drain until the server closes us
                }
            } catch (java.net.SocketException reset) {
                // the server dropped us with our junk unread: that is the point
            }
            assertTrue(one(TransferOp.READ, arena.allocate(16), endpoint, 0).completed(), "served after hostile frame " + i);
        }
    }

    /** A peer that accepts and then says nothing: the transfer fails as timed out, and the next one too. */
    @Test
    void aSilentPeerFailsTheTransferAtTheTimeout() throws IOException {
        try (java.nio.channels.ServerSocketChannel silent = java.nio.channels.ServerSocketChannel.open();
                TcpTransport impatient = new TcpTransport(TcpTransport.loopback(1, 1 << 20, 200))) {
            silent.bind(new InetSocketAddress("127.0.0.1", 0), 8);
            SegmentEndpoint mute = new SegmentEndpoint("tcp", "127.0.0.1:" + silent.socket().getLocalPort(), "seg");
            for (int attempt = 0; attempt < 2; attempt++) {
                long start = System.nanoTime();
                TransferStatus s = impatient.submit(List.of(new TransferRequest(TransferOp.READ, arena.allocate(10), mute, 0)))
                        .toCompletableFuture().join().getFirst();
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertFalse(s.completed());
                assertTrue(s.error().contains("timed out"), s.error());
                assertTrue(tookMs >= 200, "not before the timeout: " + tookMs + " ms");
            }
        }
    }
}
