package org.mooncake.osgi.transport.ucx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** A submitted batch: its requests, and {@link #moved} once every one is done with. */
final class Batch {
    final List<Op> ops;
    final CompletableFuture<Void> moved = new CompletableFuture<>();
    /** Requests not finished yet. */
    private final AtomicInteger remaining;
    final boolean confined;

    Batch(List<TransferRequest> requests, long deadline) {
        ops = new ArrayList<>(requests.size());
        boolean anyConfined = false;
        for (TransferRequest r : requests) {
            Op op = new Op(r, this, deadline);
            ops.add(op);
            anyConfined |= op.confined;
        }
        remaining = new AtomicInteger(ops.size());
        confined = anyConfined;

    }

    void opDone() {
        if (remaining.decrementAndGet() == 0) {
            moved.complete(null);
        }
    }

    List<TransferStatus> finish() {
        List<TransferStatus> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(op.finish());
        }
        return out;
    }
}
