package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The requester side, under the worker's lock: one endpoint per peer worker, created on first use
 * (on the worker thread only)
 * with error handling PEER (a vanished peer fails requests instead of hanging them), and the
 * remote keys unpacked once per segment address. A peer that failed a request is dropped (its
 * endpoint closed with force); the next request reconnects.
 */
final class Peers {
    private static final System.Logger LOG = System.getLogger(Peers.class.getName());
    /** A lane of ucp_ep_print_info: "lane[0]:  1:posix/memory.0 md[1] ... rma_bw#0 am". */
    private static final Pattern LANE = Pattern.compile("lane\\[\\d+\\]:\\s*\\d+:([\\w-]+)/([\\w:.-]+?)(?:\\.\\d+)?\\s(.*)");

    private static final int GONE_KEPT = 4096;
    private final Worker w;
    private final UcxMetrics metrics;
    private final Map<String, Peer> byWorker = new HashMap<>();
    /**
     * Segment addresses found withdrawn, or whose shared memory is gone: refused from then on
     * without unpacking their keys again (a withdrawn address never comes back: re-exposing makes a
     * new token). Unpacking the key of freed shared memory is what must not happen (see
     * {@link SharedMemoryKeys}); the most recent ones are kept.
     */
    private final Set<String> gone = Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > GONE_KEPT;
        }
    });
    /** Close requests of dropped endpoints, freed as they complete. */
    private final List<MemorySegment> closing = new ArrayList<>();
    /** Peer → the UCX transports its endpoint's lanes use, for {@link UcxTransport#negotiated}. */
    final ConcurrentMap<String, List<String>> negotiated = new ConcurrentHashMap<>();

    /**
     * The remote keys of one segment address: its memory and its control word; and where the keys
     * attached shared memory (posix, memory UCX allocated), that memory and that word as mapped in
     * this process ({@code ucp_rkey_ptr}), else null. The mapping lives as long as the keys.
     */
    record Rkeys(MemorySegment data, MemorySegment control, MemorySegment memory, MemorySegment word) {
    }

    /** One peer worker and our endpoint to it. */
    static final class Peer {
        final String key;
        final String label;
        final MemorySegment ep;
        /** The transport ("posix/memory", "tcp/lo") of the lane that carries RMA; named in the metrics. */
        final String dataPath;
        final Map<String, Rkeys> rkeys = new HashMap<>();
        boolean dropped;

        Peer(String key, String label, MemorySegment ep, String dataPath) {
            this.key = key;
            this.label = label;
            this.ep = ep;
            this.dataPath = dataPath;
        }
    }

    Peers(Worker w, UcxMetrics metrics) {
        this.w = w;
        this.metrics = metrics;
    }

    /** The peer's endpoint if it exists and has the keys of the segment at {@code address}; else null (no ucp call). */
    Peer cached(UcxAddress a, String address) {
        Peer p = byWorker.get(a.workerKey());
        return p != null && p.rkeys.containsKey(address) ? p : null;
    }

    Peer connect(UcxAddress a) {
        String key = a.workerKey();
        Peer p = byWorker.get(key);
        if (p != null) {
            return p;
        }
        if (ClosedWorkers.isClosed(key)) {
            throw new UcxException("the ucx transport serving it in this process has closed", Ucx.ERR_UNREACHABLE);
        }
        // error handling PEER fails requests to a peer that vanished, but UCX then leaves out the
        // transports that cannot detect that: shared memory (posix in 1.13: "no peer failure
        // handler"). On one host shared memory wins; requests time out instead.
        boolean peerFailures = !(a.sameHost() && w.resources.sharedMemory());
        MemorySegment ep;
        try {
            ep = create(a, peerFailures);
        } catch (UcxException e) {
            if (!peerFailures || e.status != Ucx.ERR_UNREACHABLE) {
                throw e;
            }
            peerFailures = false;
            ep = create(a, false);
        }
        String info = Ucx.epInfo(ep);
        Set<String> lanes = new LinkedHashSet<>();
        String data = null;
        for (String line : info.split("\n")) {
            Matcher m = LANE.matcher(line);
            if (m.find()) {
                String path = m.group(1) + "/" + m.group(2);
                lanes.add(path);
                if (data == null && m.group(3).contains("rma")) {
                    data = path;
                }
            }
        }
        if (data == null) {
            data = lanes.isEmpty() ? "unknown" : lanes.iterator().next();
        }
        p = new Peer(key, label(a), ep, data);
        byWorker.put(key, p);
        negotiated.put(p.label, List.copyOf(lanes));
        metrics.connected(data);
        LOG.log(Level.INFO, "ucx endpoint to {0}: lanes {1}, RMA over {2}, {3}", p.label, lanes, data,
                peerFailures ? "peer failures detected" : "no peer failure detection (requests time out instead)");
        LOG.log(Level.DEBUG, "ucx endpoint to {0}:\n{1}", p.label, info);
        return p;
    }

    private MemorySegment create(UcxAddress a, boolean peerFailures) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(Ucx.EP_PARAMS_SIZE);
            params.set(JAVA_LONG, 0, Ucx.EP_PARAM_FIELD_REMOTE_ADDRESS
                    | (peerFailures ? Ucx.EP_PARAM_FIELD_ERR_HANDLING_MODE : 0));
            params.set(ADDRESS, 8, arena.allocateFrom(JAVA_BYTE, a.worker()));
            if (peerFailures) {
                // no err_handler: UCX may call it from its own async thread, and with that FFM
                // upcall JVM crashes came twice as often (README). A failed peer shows in the
                // statuses of its requests, which drop the endpoint (UCX logs that no handler took it)
                params.set(JAVA_INT, 16, Ucx.ERR_HANDLING_MODE_PEER);
            }
            MemorySegment out = arena.allocate(ADDRESS);
            Ucx.check(Ucx.epCreate(w.worker, params, out), "ucp_ep_create to " + label(a));
            return out.get(ADDRESS, 0);
        }
    }

    private static String label(UcxAddress a) {
        String host = a.host().substring(a.host().indexOf('@') + 1);
        return host + "#" + Integer.toHexString(Arrays.hashCode(a.worker()));
    }

    /** Whether the segment at {@code address} was found withdrawn (or its memory gone) before. */
    boolean gone(String address) {
        return gone.contains(address);
    }

    /**
     * The segment's remote keys, unpacked on first use - unless shared memory they name is known to
     * be gone: UCX 1.13 must not see such a key (a failed unpack corrupts the process, see
     * {@link SharedMemoryKeys}).
     */
    Rkeys rkeys(Peer p, String address, UcxAddress a) {
        Rkeys k = p.rkeys.get(address);
        if (k == null) {
            String missing = SharedMemoryKeys.missing(a.rkey(), a.base());
            if (missing == null) {
                missing = SharedMemoryKeys.missing(a.controlRkey(), a.control());
            }
            if (missing != null) {
                gone.add(address);
                throw new UcxException("its memory is gone (" + missing + " no longer exists: the owner freed the "
                        + "segment or closed)", Ucx.ERR_UNREACHABLE);
            }
            MemorySegment data = unpack(p, a.rkey(), "segment");
            MemorySegment control;
            try {
                control = unpack(p, a.controlRkey(), "control page");
            } catch (RuntimeException e) {
                Ucx.rkeyDestroy(data);
                throw e;
            }
            k = mapped(data, control, a);
            p.rkeys.put(address, k);
        }
        return k;
    }

    /**
     * The keys, with the segment and its control word as mapped here where both keys attached
     * shared memory. A pointer equal to the remote address would be a key of this process's own
     * memory (self), valid only for the process that packed it: not used.
     */
    private static Rkeys mapped(MemorySegment data, MemorySegment control, UcxAddress a) {
        long memory = Ucx.rkeyPtr(data, a.base());
        long word = Ucx.rkeyPtr(control, a.control());
        if (memory == 0 || word == 0 || memory == a.base() || word == a.control()) {
            return new Rkeys(data, control, null, null);
        }
        return new Rkeys(data, control, MemorySegment.ofAddress(memory).reinterpret(a.size()),
                MemorySegment.ofAddress(word).reinterpret(8));
    }

    private static MemorySegment unpack(Peer p, byte[] packed, String what) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Ucx.check(Ucx.rkeyUnpack(p.ep, arena.allocateFrom(JAVA_BYTE, packed), out),
                    "ucp_ep_rkey_unpack (" + what + " of " + p.label + ")");
            return out.get(ADDRESS, 0);
        }
    }

    /**
     * A segment found withdrawn: its keys go (a shared-memory key holds a mapping of the old memory),
     * and its address is refused from now on, without unpacking its keys again.
     */
    void forget(Peer p, String address) {
        gone.add(address);
        Rkeys k = p.rkeys.remove(address);
        if (k != null) {
            Ucx.rkeyDestroy(k.data);
            Ucx.rkeyDestroy(k.control);
        }
    }

    /** Closes the endpoint with force: its outstanding requests complete with an error; the next request reconnects. */
    void drop(Peer p, String why) {
        if (p.dropped) {
            return;
        }
        p.dropped = true;
        byWorker.remove(p.key, p);
        negotiated.remove(p.label);
        metrics.disconnected(p.dataPath);
        for (Rkeys k : p.rkeys.values()) {
            Ucx.rkeyDestroy(k.data);
            Ucx.rkeyDestroy(k.control);
        }
        p.rkeys.clear();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(Ucx.REQUEST_PARAM_SIZE);
            param.set(JAVA_INT, 0, Ucx.OP_ATTR_FIELD_FLAGS);
            param.set(JAVA_INT, 4, Ucx.EP_CLOSE_FLAG_FORCE);
            MemorySegment r = Ucx.epClose(p.ep, param);
            if (Ucx.isRequest(r)) {
                closing.add(r);
            }
        }
        LOG.log(Level.INFO, "ucx endpoint to {0} closed: {1}", p.label, why);
    }

    /** Frees the close requests that completed. */
    void poll() {
        for (Iterator<MemorySegment> it = closing.iterator(); it.hasNext();) {
            MemorySegment r = it.next();
            if (Ucx.checkStatus(r) != Ucx.INPROGRESS) {
                Ucx.free(r);
                it.remove();
            }
        }
    }

    boolean closingAny() {
        return !closing.isEmpty();
    }

    void closeAll() {
        for (Peer p : List.copyOf(byWorker.values())) {
            drop(p, "the transport closes");
        }
    }
}
