package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.RepeatedTest;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;

/**
 * An owner closes its transport while a peer keeps writing into its segment, then frees the
 * segment's memory at once, as a storage node does when it stops: once close returns, no
 * thread of the transport may still be inside that memory (closing its arena would fail).
 */
class CloseUnderLoadTest {
    @RepeatedTest(20)
    void theOwnersMemoryIsFreeOnceItsTransportHasClosed() throws Exception {
        Arena arena = Arena.ofShared();
        TcpTransport owner = new TcpTransport(TcpTransport.loopback(2, 4 << 20, 5_000));
        SegmentEndpoint endpoint = owner.expose("seg", arena.allocate(16 << 20, 64));
        try (TcpTransport peer = new TcpTransport(TcpTransport.loopback(2, 4 << 20, 5_000));
                Arena local = Arena.ofShared()) {
            MemorySegment payload = local.allocate(8 << 20, 64);
            CountDownLatch transferred = new CountDownLatch(1);
            AtomicBoolean going = new AtomicBoolean(true);
            Thread writer = Thread.ofPlatform().start(() -> {
                while (going.get()) {
                    boolean ok = peer.submit(List.of(new TransferRequest(TransferOp.WRITE, payload, endpoint, 0)))
                            .toCompletableFuture().join().getFirst().completed();
                    transferred.countDown();
                    if (!ok) {
                        return; // the owner has gone
                    }
                }
            });
            assertTrue(transferred.await(30, TimeUnit.SECONDS), "a first transfer");
            owner.close();
            arena.close(); // throws IllegalStateException if a serving thread still holds the memory
            going.set(false);
            writer.join();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
