package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * How a requester reports a peer that fails it: a WRITE to a peer that took the connection and
 * the bytes but never answered may still land (in doubt); one whose connection the peer closed,
 * or a READ, failed for certain.
 */
@Timeout(60)
class RequesterFailuresTest {
    static final long TIMEOUT_MS = 300;

    private static TransferStatus one(TcpTransport t, TransferOp op, MemorySegment local, ServerSocket peer) {
        SegmentEndpoint at = new SegmentEndpoint("tcp", "127.0.0.1:" + peer.getLocalPort(), "seg");
        return t.submit(List.of(new TransferRequest(op, local, at, 0))).toCompletableFuture().join().getFirst();
    }

    @Test
    void aWriteToAPeerThatNeverAnswersFailsInDoubtAtTheTimeoutAndAReadFailsCertain() throws Exception {
        try (Arena arena = Arena.ofShared();
                ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
                TcpTransport requester = new TcpTransport(TcpTransport.loopback(1, 1 << 20, TIMEOUT_MS))) {
            // accepts every connection and holds it, never reading a byte
            List<Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Void> acceptor = CompletableFuture.runAsync(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            MemorySegment data = arena.allocate(64 << 10);
            long start = System.nanoTime();
            TransferStatus write = one(requester, TransferOp.WRITE, data, silent);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertFalse(write.completed());
            assertTrue(write.inDoubt(), "a WRITE that may still land is in doubt: " + write.error());
            assertTrue(write.error().contains("timed out"), write.error());
            // the sweep runs every quarter of the timeout: at most a quarter late, plus a loaded VM's slack
            assertTrue(tookMs >= TIMEOUT_MS && tookMs < TIMEOUT_MS * 3 / 2 + 2_000, "failed after " + tookMs + " ms");

            TransferStatus read = one(requester, TransferOp.READ, arena.allocate(100), silent);
            assertFalse(read.completed());
            assertFalse(read.inDoubt(), "a READ lands nothing anywhere: " + read.error());
            silent.close();
            acceptor.join();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aWriteWhoseConnectionThePeerClosesFailsCertain() throws Exception {
        try (Arena arena = Arena.ofShared();
                ServerSocket closing = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
                TcpTransport requester = new TcpTransport(TcpTransport.loopback(1, 1 << 20, 20_000))) {
            CompletableFuture<Void> acceptor = CompletableFuture.runAsync(() -> {
                try {
                    while (true) {
                        closing.accept().close();
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            long start = System.nanoTime();
            TransferStatus write = one(requester, TransferOp.WRITE, arena.allocate(64 << 10), closing);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertFalse(write.completed());
            assertFalse(write.inDoubt(), "a closed connection lands nothing later: " + write.error());
            assertFalse(write.error().contains("timed out"), write.error());
            assertTrue(tookMs < 10_000, "failed at the close, not at the timeout: " + tookMs + " ms");
            closing.close();
            acceptor.join();
        }
    }

    /** A refusal the peer answered is certain too: ACCESS_DENIED for a WRITE without a grant. */
    @Test
    void aWriteThePeerDeniedFailsCertain() throws Exception {
        try (Arena arena = Arena.ofShared();
                TcpTransport owner = new TcpTransport(TcpTransport.loopback(1, 1 << 20, 5_000));
                TcpTransport requester = new TcpTransport(TcpTransport.loopback(1, 1 << 20, 5_000))) {
            MemorySegment segment = arena.allocate(1 << 20);
            SegmentEndpoint at = owner.expose("seg", segment, GrantCheckTest.KEY);
            TransferStatus write = requester.submit(List.of(new TransferRequest(TransferOp.WRITE,
                    arena.allocate(4096).fill((byte) 9), at, 0))).toCompletableFuture().join().getFirst();
            assertFalse(write.completed());
            assertFalse(write.inDoubt(), write.error());
            assertTrue(write.error().contains("access denied"), write.error());
            assertTrue(segment.asSlice(0, 4096).elements(java.lang.foreign.ValueLayout.JAVA_BYTE)
                    .allMatch(b -> b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) == 0), "nothing written");
            assertTrue(owner.metrics().getFirst().samples().stream()
                    .anyMatch(s -> s.labels().get("reason").equals("no_grant") && s.value() == 1), "counted in /metrics");
        }
    }
}
