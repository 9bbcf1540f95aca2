package org.mooncake.osgi.transport.ucx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;

/**
 * A throwaway measurement, not a test: READ and WRITE throughput between two transports in one
 * JVM, per UCX transport, request size and segment memory (allocated by UCX or registered).
 * {@code java -cp ... org.mooncake.osgi.transport.ucx.UcxThroughput [seconds]}.
 */
public final class UcxThroughput {
    private UcxThroughput() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.5;
        System.out.printf("%-11s %-10s %-5s %9s %6s %10s%n", "tls", "segment", "op", "size", "batch", "MiB/s");
        for (String tls : new String[] {"posix,self", "tcp"}) {
            for (boolean allocated : new boolean[] {true, false}) {
                for (long size : new long[] {1 << 20, 16 << 20}) {
                    for (int batch : new int[] {1, 4}) {
                        for (TransferOp op : TransferOp.values()) {
                            double mibs = run(tls, allocated, size, batch, op, seconds);
                            System.out.printf("%-11s %-10s %-5s %9d %6d %10.0f%n", tls, allocated ? "ucx-alloc" : "registered",
                                    op, size, batch, mibs);
                        }
                    }
                }
            }
        }
    }

    private static double run(String tls, boolean allocated, long size, int batch, TransferOp op, double seconds) {
        try (Arena arena = Arena.ofShared();
                UcxTransport owner = new UcxTransport(UcxTransport.with(tls, 10_000, allocated));
                UcxTransport peer = new UcxTransport(UcxTransport.with(tls))) {
            MemorySegment memory = allocated ? owner.allocateSegment("s", 64 << 20, arena)
                    : arena.allocate(64 << 20, 2 << 20);
            SegmentEndpoint ep = owner.expose("s", memory);
            List<TransferRequest> requests = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                MemorySegment local = arena.allocate(size, 4096);
                local.fill((byte) i);
                requests.add(new TransferRequest(op, local, ep, (i * size) % (64 << 20)));
            }
            long bytes = 0;
            long warm = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < warm) {
                peer.submit(requests).toCompletableFuture().join();
            }
            long t0 = System.nanoTime();
            long end = t0 + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                var s = peer.submit(requests).toCompletableFuture().join();
                if (!s.getFirst().completed()) {
                    throw new IllegalStateException(s.getFirst().error());
                }
                bytes += size * batch;
            }
            return bytes / ((System.nanoTime() - t0) / 1e9) / (1 << 20);
        }
    }
}
