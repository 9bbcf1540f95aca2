package org.mooncake.osgi.transport.ucx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.mooncake.osgi.store.memory.MemoryCopy;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * The requests in flight; every method runs holding the worker's lock ({@link Worker#lockOpen}).
 * Where the segment is shared memory UCX allocated and mapped here for its keys, a request is a
 * plain copy through that mapping on the submitter's thread ({@link #copyHere}): the memcpy UCX's
 * posix transport would make, with the checksum in the same pass, then the segment's control word
 * read through its mapping. Every other request goes to UCX on the worker thread ({@link #issue}),
 * without callbacks: {@code ucp_get_nbx} / {@code ucp_put_nbx} with a zeroed request parameter
 * return NULL (done at once), an error, or a request that is polled with {@code
 * ucp_request_check_status} after every round of progress. Such a request issues, in order: the
 * data get/put, a fence, a get of the segment's control word, and for a WRITE an endpoint flush (so
 * a reported write is visible at the target). It succeeds only if all of them did and the word
 * still holds the segment's token. Past its deadline it is cancelled and fails, and its endpoint
 * is closed so the next request reconnects.
 */
final class Transfers {
    private final Worker w;
    private final Peers peers;
    private final UcxMetrics metrics;
    private final Function<String, UcxAddress> decode;
    private final long timeoutMs;
    private final List<Op> active = new ArrayList<>();
    /** Timed-out requests whose UCX requests have not completed yet: their memory is kept until they do. */
    private final List<Op> zombies = new ArrayList<>();
    private final Cells cells = new Cells();
    /** A zeroed ucp_request_param_t: no callback, so completion is polled. */
    private final MemorySegment param = Arena.ofAuto().allocate(Ucx.REQUEST_PARAM_SIZE, 8);

    Transfers(Worker w, Peers peers, UcxMetrics metrics, Function<String, UcxAddress> decode, long timeoutMs) {
        this.w = w;
        this.peers = peers;
        this.metrics = metrics;
        this.decode = decode;
        this.timeoutMs = timeoutMs;
    }

    /**
     * On the submitter's thread: runs the requests whose segment is mapped here (shared memory UCX
     * allocated, keys unpacked before) as plain copies, each with its checksums in the same pass
     * ({@link MemoryCopy}), then reads the control word through the same mapping; returns the
     * others, for {@link Op#prepare} and {@link #issue} on the worker thread. No ucp request is
     * issued here: only the worker thread issues and progresses (UCX 1.13 aborts the process when
     * a send meets an endpoint whose failure it has not processed yet, which another thread's
     * progress may be about to do).
     */
    List<Op> copyHere(Batch b) {
        List<Op> rest = null;
        for (Op op : b.ops) {
            if (!copy(op)) {
                if (rest == null) {
                    rest = new ArrayList<>(b.ops.size());
                }
                rest.add(op);
            }
        }
        return rest == null ? List.of() : rest;
    }

    /** False (nothing done) unless the op's segment is mapped here. */
    private boolean copy(Op op) {
        TransferRequest r = op.request;
        String address = r.remote().address();
        if (peers.gone(address)) {
            return false; // start() fails it
        }
        UcxAddress t;
        try {
            t = decode.apply(address);
        } catch (IllegalArgumentException e) {
            return false;
        }
        Peers.Peer p = peers.cached(t, address);
        Peers.Rkeys k = p == null ? null : p.rkeys.get(address);
        if (k == null || k.memory() == null) {
            return false;
        }
        op.target = t;
        op.peer = p;
        TransferStatus s = MemoryCopy.run(r, k.memory()); // range, overlap and a closed arena fail it
        if (!s.completed()) {
            op.failed = s;
            op.batch.opDone();
            return true;
        }
        VarHandle.fullFence(); // the control word is read after the data moved (and a write is visible)
        UcxMetrics.Path path = metrics.path(p.dataPath);
        if (k.word().get(ValueLayout.JAVA_LONG, 0) != t.token()) {
            path.errors.incrementAndGet();
            fail(op, "segment " + r.remote().segmentName() + " is withdrawn (" + p.label + ")");
            peers.forget(p, address);
            return true;
        }
        (r.op() == TransferOp.READ ? path.bytesRead : path.bytesWritten).addAndGet(r.length());
        op.copied = s;
        op.batch.opDone();
        return true;
    }

    /** On the worker thread, with the ops {@link Op#prepare prepared}: the requests go to UCX. */
    void issue(List<Op> ops) {
        for (Op op : ops) {
            start(op);
        }
    }

    private void start(Op op) {
        TransferRequest r = op.request;
        String address = r.remote().address();
        if (peers.gone(address)) {
            fail(op, "segment " + r.remote().segmentName() + " is withdrawn (or its memory freed), as found before");
            return;
        }
        try {
            UcxAddress t = decode.apply(address);
            long len = r.length();
            if (r.remoteOffset() > t.size() - len) {
                fail(op, "range " + r.remoteOffset() + "+" + len + " is outside segment " + r.remote().segmentName()
                        + " of " + t.size() + " bytes");
                return;
            }
            op.target = t;
            op.peer = peers.connect(t);
            Peers.Rkeys k = peers.rkeys(op.peer, address, t);
            MemorySegment ep = op.peer.ep;
            if (len > 0) {
                long remote = t.base() + r.remoteOffset();
                MemorySegment s = r.op() == TransferOp.READ ? Ucx.get(ep, op.buffer, len, remote, k.data(), param)
                        : Ucx.put(ep, op.buffer, len, remote, k.data(), param);
                if (!track(op, s)) {
                    complete(op);
                    return;
                }
            }
            Ucx.fence(w.worker); // the control word is read after the data moved
            op.cell = cells.take();
            track(op, Ucx.get(ep, cells.at(op.cell), 8, t.control(), k.control(), param));
            if (r.op() == TransferOp.WRITE && op.failure == Ucx.OK) {
                track(op, Ucx.epFlush(ep, param));
            }
        } catch (IllegalArgumentException | UcxException e) {
            fail(op, e.getMessage());
            return;
        } catch (IllegalStateException e) {
            fail(op, "local memory: " + e.getMessage()); // its arena was closed
            return;
        }
        if (pending(op)) {
            active.add(op);
        } else {
            complete(op);
        }
    }



    /** Keeps a request UCX returned; false if it failed at once. */
    private static boolean track(Op op, MemorySegment s) {
        if (Ucx.isRequest(s)) {
            for (int i = 0; i < op.requests.length; i++) {
                if (op.requests[i] == null) {
                    op.requests[i] = s;
                    return true;
                }
            }
            throw new IllegalStateException("more requests than slots");
        }
        if (Ucx.isError(s)) {
            op.failure = Ucx.status(s);
            return false;
        }
        return true;
    }

    /** Checks the op's requests, freeing those that completed; true while any is in progress. */
    private static boolean pending(Op op) {
        boolean pending = false;
        for (int i = 0; i < op.requests.length; i++) {
            MemorySegment req = op.requests[i];
            if (req != null) {
                byte st = Ucx.checkStatus(req);
                if (st == Ucx.INPROGRESS) {
                    pending = true;
                } else {
                    Ucx.free(req);
                    op.requests[i] = null;
                    if (st != Ucx.OK && op.failure == Ucx.OK) {
                        op.failure = st;
                    }
                }
            }
        }
        return pending;
    }

    /** All its requests are done: success if none failed and the segment is still served. */
    private void complete(Op op) {
        UcxMetrics.Path path = metrics.path(op.peer.dataPath);
        if (op.failure != Ucx.OK) {
            path.errors.incrementAndGet();
            fail(op, Ucx.describe(op.failure) + " from " + op.peer.label + " over " + op.peer.dataPath);
            peers.drop(op.peer, "a request failed: " + Ucx.describe(op.failure));
        } else if (cells.get(op.cell) != op.target.token()) {
            path.errors.incrementAndGet();
            fail(op, "segment " + op.request.remote().segmentName() + " is withdrawn (" + op.peer.label + ")");
            peers.forget(op.peer, op.request.remote().address());
        } else {
            (op.request.op() == TransferOp.READ ? path.bytesRead : path.bytesWritten).addAndGet(op.request.length());
            op.batch.opDone();
        }
        if (op.cell >= 0) {
            cells.give(op.cell);
        }
    }

    private static void fail(Op op, String error) {
        op.failed = TransferStatus.failed(error);
        op.batch.opDone();
    }

    private void timeout(Op op) {
        metrics.timeouts.incrementAndGet();
        metrics.path(op.peer.dataPath).errors.incrementAndGet();
        for (MemorySegment req : op.requests) {
            if (req != null) {
                Ucx.cancel(w.worker, req);
            }
        }
        fail(op, "timed out after " + timeoutMs + " ms (" + op.peer.label + " over " + op.peer.dataPath + ")");
        peers.drop(op.peer, "a request timed out"); // its requests complete now, cancelled
        zombies.add(op);
    }

    /** One round over what is in flight; true while anything is. */
    boolean poll(long now) {
        peers.poll();
        for (Iterator<Op> it = active.iterator(); it.hasNext();) {
            Op op = it.next();
            if (!pending(op)) {
                it.remove();
                complete(op);
            } else if (now - op.deadline > 0) {
                it.remove();
                timeout(op);
            }
        }
        for (Iterator<Op> it = zombies.iterator(); it.hasNext();) {
            Op op = it.next();
            if (!pending(op)) {
                it.remove(); // nothing will write into its cell any more
                cells.give(op.cell);
            }
        }
        return !active.isEmpty() || !zombies.isEmpty() || peers.closingAny();
    }

    long nextDeadline() {
        long next = Long.MAX_VALUE;
        for (Op op : active) {
            next = Math.min(next, op.deadline);
        }
        return next;
    }

    long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /** The transport closes: what is in flight fails; endpoints closing purge their requests. */
    void close() {
        for (Op op : active) {
            for (MemorySegment req : op.requests) {
                if (req != null) {
                    Ucx.cancel(w.worker, req);
                }
            }
            fail(op, "the ucx transport is closed");
            zombies.add(op);
        }
        active.clear();
        peers.closeAll();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while ((!zombies.isEmpty() || peers.closingAny()) && System.nanoTime() - until < 0) {
            Ucx.progress(w.worker);
            poll(System.nanoTime());
        }
        for (Op op : zombies) {
            for (MemorySegment req : op.requests) {
                if (req != null) {
                    Ucx.free(req); // released by UCX when it completes
                }
            }
        }
        zombies.clear();
    }
}
