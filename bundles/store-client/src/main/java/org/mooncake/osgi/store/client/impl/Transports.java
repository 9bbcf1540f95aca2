package org.mooncake.osgi.store.client.impl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.concurrent.ConcurrentHashMap;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * The transports on offer, by protocol. Bound and unbound from any thread; the data path reads
 * an immutable map. Where two of one protocol are bound (two versions of a bundle side by side),
 * the one bound last carries new transfers, and the other takes over when it goes.
 */
final class Transports {
    private static final System.Logger LOG = System.getLogger(Transports.class.getName());
    private final List<Transport> bound = new ArrayList<>();
    private volatile Map<String, Transport> byProtocol = Map.of();
    private final TransferCounts counts = new TransferCounts();

    synchronized void add(Transport t) {
        bound.add(t);
        index();
    }

    synchronized void remove(Transport t) {
        bound.remove(t);
        index();
    }

    private void index() {
        Map<String, Transport> m = new HashMap<>();
        bound.forEach(t -> m.put(t.protocol(), t)); // the last bound of a protocol wins
        byProtocol = Map.copyOf(m);
    }

    /** The transport for an endpoint: its protocol's, if that one can reach it from here. */
    Transport reaching(SegmentEndpoint endpoint) {
        Transport t = get(endpoint.protocol());
        if (!t.canReach(endpoint)) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL,
                    "segment " + endpoint.segmentName() + " at " + endpoint.address() + " is not reachable over "
                            + endpoint.protocol() + " from here");
        }
        return t;
    }

    private final java.util.Set<String> fallbackLogged = ConcurrentHashMap.newKeySet();

    /**
     * The endpoint a transport bound here reaches most cheaply ({@link Transport#cost}), the
     * segment's own order breaking ties. Passing over an endpoint because its protocol has no
     * transport here is logged once. Where none can, the {@code op} that was to run is counted as
     * failed under protocol {@value TransferCounts#NONE}.
     */
    SegmentEndpoint pick(String segment, List<SegmentEndpoint> endpoints, TransferOp op) {
        Map<String, Transport> transports = byProtocol;
        String missing = null;
        SegmentEndpoint best = null;
        int bestCost = Integer.MAX_VALUE;
        for (SegmentEndpoint e : endpoints) {
            Transport t = transports.get(e.protocol());
            if (t == null) {
                missing = missing == null && best == null ? e.protocol() : missing;
                continue;
            }
            if (t.canReach(e)) {
                int cost = t.cost(e);
                if (cost < bestCost) {
                    best = e;
                    bestCost = cost;
                }
            }
        }
        if (best == null) {
            counts.unreachable(op);
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "no transport here reaches segment " + segment + " "
                    + endpoints.stream().map(e -> e.protocol() + "://" + e.address()).toList());
        }
        if (missing != null && fallbackLogged.add(missing + "->" + best.protocol())) {
            LOG.log(System.Logger.Level.INFO, "no {0} transport here: segments that offer it are reached over {1}",
                    missing, best.protocol());
        }
        return best;
    }

    Transport get(String protocol) {
        Transport t = byProtocol.get(protocol);
        if (t == null) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "no transport for protocol " + protocol);
        }
        return t;
    }

    /** Every transport bound, in the order bound; several of a protocol, when so. */
    synchronized List<Transport> all() {
        return List.copyOf(bound);
    }

    /**
     * The checksums a transport reported for the request that asked for them: one of all its
     * bytes, or one per chunk; empty and null where the transport computed none.
     */
    record Reported(OptionalLong whole, long[] chunks) {
        static final Reported NOTHING = new Reported(OptionalLong.empty(), null);
    }

    /**
     * Runs requests as one batch per protocol, all in flight together; any failure status or
     * exception becomes TRANSFER_FAIL once every batch has finished (a batch still moving bytes
     * when the caller gives up could write into blocks the master hands out again). Returns the
     * checksums a transport reported for a request that asked for them (callers ask in one
     * request at most). Counts every request in {@link #counts}.
     */
    Reported runAll(List<TransferRequest> requests) {
        List<List<TransferRequest>> batches = batchesByProtocol(requests);
        List<CompletableFuture<List<TransferStatus>>> inFlight = new ArrayList<>(batches.size());
        for (List<TransferRequest> batch : batches) {
            try {
                Transport t = null;
                for (TransferRequest r : batch) {
                    t = reaching(r.remote());
                }
                inFlight.add(t.submit(batch).toCompletableFuture());
            } catch (RuntimeException unreachableClosedOrBroken) {
                // a transport going away under us (bundle stopped) fails its batch, not the caller
                inFlight.add(CompletableFuture.failedFuture(unreachableClosedOrBroken));
            }
        }
        String failure = null;
        boolean inDoubt = false;
        OptionalLong checksum = OptionalLong.empty();
        long[] chunks = null;
        for (int b = 0; b < batches.size(); b++) {
            List<TransferRequest> batch = batches.get(b);
            try {
                List<TransferStatus> statuses = inFlight.get(b).join();
                if (statuses.size() != batch.size()) {
                    throw new IllegalStateException("the " + batch.getFirst().remote().protocol() + " transport answered "
                            + statuses.size() + " statuses for " + batch.size() + " requests");
                }
                for (int i = 0; i < batch.size(); i++) {
                    TransferStatus s = statuses.get(i);
                    counts.finished(batch.get(i), s.completed());
                    if (!s.completed() && failure == null) {
                        failure = s.error();
                    }
                    inDoubt |= !s.completed() && s.inDoubt();
                    checksum = checksum.isPresent() ? checksum : s.checksum();
                    chunks = chunks != null ? chunks : s.chunkChecksums();
                }
            } catch (RuntimeException e) {
                batch.forEach(r -> counts.finished(r, false));
                Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                        ? e.getCause() : e;
                failure = failure != null ? failure
                        : cause instanceof StoreException se ? se.getMessage() : cause.toString();
            }
        }
        if (failure != null) {
            String message = requests.getFirst().op() + " failed: " + failure;
            throw inDoubt ? new TransferInDoubt(message) : new StoreException(ErrorCode.TRANSFER_FAIL, message);
        }
        return checksum.isEmpty() && chunks == null ? Reported.NOTHING : new Reported(checksum, chunks);
    }

    /** What this client's transfers have moved, by protocol. */
    List<TransferStats> transferStats() {
        return counts.snapshot();
    }

    /** A read that arrived but did not match its object's checksum. */
    void checksumMismatch(String protocol) {
        counts.checksumMismatch(protocol);
    }

    /** One batch per protocol; usually there is only one, and then no map is built. */
    private static List<List<TransferRequest>> batchesByProtocol(List<TransferRequest> requests) {
        String first = requests.getFirst().remote().protocol();
        for (TransferRequest r : requests) {
            if (!r.remote().protocol().equals(first)) {
                return List.copyOf(requests.stream().collect(Collectors.groupingBy(q -> q.remote().protocol())).values());
            }
        }
        return List.of(requests);
    }
}
