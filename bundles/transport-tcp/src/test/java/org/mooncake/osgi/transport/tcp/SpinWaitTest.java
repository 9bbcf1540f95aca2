package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** {@code spin_wait_us}: polling before a blocking read changes when a thread sleeps, never what arrives. */
class SpinWaitTest {
    @ParameterizedTest(name = "spin_wait_us={0}")
    @ValueSource(longs = {0, 50, 10_000})
    void everySpinMovesTheSameBytesBothWays(long spinUs) throws IOException {
        try (Arena arena = Arena.ofShared();
                TcpTransport owner = new TcpTransport(TcpTransport.loopback(2, 1 << 16, 5_000, spinUs));
                TcpTransport peer = new TcpTransport(TcpTransport.loopback(2, 1 << 16, 5_000, spinUs))) {
            MemorySegment segment = arena.allocate(1 << 20, 64);
            SegmentEndpoint endpoint = owner.expose("seg", segment);
            Random rnd = new Random(spinUs);
            for (int size : new int[] {1, 4096, 65_536, 300_001}) {
                byte[] data = new byte[size];
                rnd.nextBytes(data);
                TransferStatus written = peer.submit(List.of(new TransferRequest(TransferOp.WRITE, MemorySegment.ofArray(data),
                        endpoint, 100))).toCompletableFuture().join().getFirst();
                assertTrue(written.completed(), written.error());
                MemorySegment back = arena.allocate(size);
                TransferStatus read = peer.submit(List.of(new TransferRequest(TransferOp.READ, back, endpoint, 100)))
                        .toCompletableFuture().join().getFirst();
                assertTrue(read.completed(), read.error());
                assertEquals(-1, back.mismatch(MemorySegment.ofArray(data)), "size " + size);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 10_001})
    void aSpinOutsideItsRangeIsRefused(long spinUs) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TcpTransport(TcpTransport.loopback(2, 1 << 16, 5_000, spinUs)));
        assertTrue(e.getMessage().contains("spin_wait_us"), e.getMessage());
    }

    /** The budgets below are a minute: a poll that ignored arrivals or closure would hit the timeout. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void awaitReadableReturnsWhenDataWaitsOrTheTimeIsUpAndFailsOnAClosedChannel() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            InputStream polled = accepted.socket().getInputStream();
            Wire.awaitReadable(polled, 1_000_000); // nothing sent: gives up after its 1 ms
            assertEquals(0, polled.available());
            client.write(ByteBuffer.wrap(new byte[] {42}));
            Wire.awaitReadable(polled, 60_000_000_000L); // returns as soon as the byte is there
            assertEquals(1, polled.available());
            assertEquals(42, Wire.readFully(accepted, ByteBuffer.allocate(1)).get());
            accepted.close();
            // a server thread polling a connection that is closed under it ends, it does not spin on
            assertThrows(IOException.class, () -> Wire.awaitReadable(polled, 60_000_000_000L));
        }
    }
}
