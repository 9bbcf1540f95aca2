package org.mooncake.osgi.store.client.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;

/**
 * Transfers this client has run, by protocol: counted by the request threads (adders, so that
 * threads moving bytes in parallel do not contend on one counter), read by whoever asks.
 */
final class TransferCounts {
    private static final class Counts {
        final LongAdder writes = new LongAdder();
        final LongAdder bytesWritten = new LongAdder();
        final LongAdder failedWrites = new LongAdder();
        final LongAdder reads = new LongAdder();
        final LongAdder bytesRead = new LongAdder();
        final LongAdder failedReads = new LongAdder();
        final LongAdder checksumMismatches = new LongAdder();

        void failed(TransferOp op) {
            (op == TransferOp.WRITE ? failedWrites : failedReads).increment();
        }
    }

    /** The protocol under which transfers no transport here could reach are counted. */
    static final String NONE = "none";

    private final Map<String, Counts> byProtocol = new ConcurrentHashMap<>();

    private Counts of(String protocol) {
        Counts c = byProtocol.get(protocol);
        return c != null ? c : byProtocol.computeIfAbsent(protocol, p -> new Counts());
    }

    /** A request that ran to its end, or failed (whatever the reason: no transport, a peer gone, a status). */
    void finished(TransferRequest r, boolean completed) {
        Counts c = of(r.remote().protocol());
        boolean write = r.op() == TransferOp.WRITE;
        if (!completed) {
            c.failed(r.op());
        } else if (write) {
            c.writes.increment();
            c.bytesWritten.add(r.length());
        } else {
            c.reads.increment();
            c.bytesRead.add(r.length());
        }
    }

    /** A transfer that never started: no transport here reaches the segment. */
    void unreachable(TransferOp op) {
        of(NONE).failed(op);
    }

    /** A completed read whose bytes did not match the object's checksum. */
    void checksumMismatch(String protocol) {
        of(protocol).checksumMismatches.increment();
    }

    /** One entry per protocol used, by protocol name. */
    List<TransferStats> snapshot() {
        List<TransferStats> out = new ArrayList<>();
        byProtocol.forEach((p, c) -> out.add(new TransferStats(p, c.writes.sum(), c.bytesWritten.sum(),
                c.failedWrites.sum(), c.reads.sum(), c.bytesRead.sum(), c.failedReads.sum(), c.checksumMismatches.sum())));
        out.sort(java.util.Comparator.comparing(TransferStats::protocol));
        return out;
    }
}
