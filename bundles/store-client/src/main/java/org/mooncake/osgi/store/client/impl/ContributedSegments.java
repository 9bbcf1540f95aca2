package org.mooncake.osgi.store.client.impl;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * The segments one client contributes, who serves each, and what the master knows of them: a
 * segment is served by every transport bound that can serve it, transports come and go (bundles
 * updated), the master may be unreachable or restart, and after each change the master is told
 * the endpoints of now. The master may also lose a segment while this client lives (it restarted,
 * or another caller unmounted it): each heartbeat checks, mounts such a segment again, and keeps
 * the reason of any segment that contributes nothing for {@code /health}.
 *
 * <p>Threads: everything here runs under one lock, taken by mounts and unmounts (any caller),
 * transports bound and unbound (DS threads) and heartbeats (the client's scheduler); all rare,
 * and the data path never takes it. {@link #contains} and {@link #notContributing} read without it.
 */
final class ContributedSegments {
    private static final System.Logger LOG = System.getLogger(ContributedSegments.class.getName());

    private final MasterService master;
    private final Transports transports;
    private final String clientId;
    private final Object lock = new Object();
    /** By name; changed under {@link #lock} only. */
    private final Map<String, OwnSegment> own = new ConcurrentHashMap<>();
    /** Segments whose endpoints the master has not heard yet (it was unreachable); told at the next heartbeat. */
    private final Set<String> untold = ConcurrentHashMap.newKeySet();
    /** The master's registration of this client; a new one means our segments were forgotten. Under {@link #lock}. */
    private long registration;
    /** Why a segment contributes nothing now, by name; changed under {@link #lock}, read without. */
    private final Map<String, String> notContributing = new ConcurrentHashMap<>();

    private static final String SERVED_BY_NOTHING = "served by no transport here; mounted again once a transport "
            + "that can serve it starts";

    ContributedSegments(MasterService master, Transports transports, String clientId) {
        this.master = master;
        this.transports = transports;
        this.clientId = clientId;
    }

    boolean contains(String segment) {
        return own.containsKey(segment);
    }

    Set<String> names() {
        return Set.copyOf(own.keySet());
    }

    /** How the master should see segment {@code name} now. */
    SegmentDescriptor describe(String name) {
        synchronized (lock) {
            return own.get(name).descriptor(clientId);
        }
    }

    /**
     * A heartbeat reached the master, which answered with this client's registration. After a
     * master restart, or after it declared this client dead (a new registration), every segment is
     * mounted again (the objects they held are gone). Otherwise the master is asked which of this
     * client's segments it holds, and one it no longer holds (unmounted by another caller) is
     * mounted again too. A segment that cannot be mounted is recorded with the reason
     * ({@link #notContributing}) and tried again at the next heartbeat. Then what the master
     * missed is told.
     */
    void heard(long registrationNow) {
        synchronized (lock) {
            // a restarted master, a new registration, or the first contact: it holds none of them
            boolean forgotten = registrationNow != registration;
            registration = registrationNow;
            Set<String> held = forgotten || own.isEmpty() ? Set.of() : heldByMaster();
            for (OwnSegment s : own.values()) {
                if (!forgotten && held.contains(s.name)) {
                    stillHeld(s);
                    continue;
                }
                if (!forgotten && !notContributing.containsKey(s.name)) {
                    LOG.log(Level.WARNING, "the master no longer holds segment {0} of client {1} (another caller "
                            + "unmounted it); mounting it again, empty", s.name, clientId);
                }
                mountAgain(s);
            }
            for (String name : List.copyOf(untold)) {
                OwnSegment s = own.get(name);
                if (s == null || tell(s, false)) {
                    untold.remove(name);
                }
            }
        }
    }

    /**
     * Why each segment that contributes nothing now does not, by name; empty when every one
     * contributes. Read without the lock (health probes).
     */
    Map<String, String> notContributing() {
        return Map.copyOf(notContributing);
    }

    /** The names of this client's segments that the master holds; one call, whatever the number of segments. */
    private Set<String> heldByMaster() {
        Set<String> held = new HashSet<>();
        for (SegmentStats s : master.segments()) {
            if (clientId.equals(s.clientId())) {
                held.add(s.name());
            }
        }
        return held;
    }

    /** The master holds {@code s}: it contributes, unless no transport here serves it any more. */
    private void stillHeld(OwnSegment s) {
        if (s.servedBy.isEmpty()) {
            idle(s.name, SERVED_BY_NOTHING);
        } else {
            notContributing.remove(s.name);
        }
    }

    /** Records why {@code segment} contributes nothing; logged when the reason is new. */
    private void idle(String segment, String why) {
        if (!why.equals(notContributing.put(segment, why))) {
            LOG.log(Level.WARNING, "segment {0} of client {1} contributes nothing: {2}", segment, clientId, why);
        }
    }

    /**
     * Exposes the memory through {@code primary} (which must serve it; null: any) and every other
     * bound transport that can serve it (shm serves only memory it allocated), then mounts it with
     * all those endpoints, cheapest first. Transports bound later serve it too
     * ({@link #transportBound}). Returns false when the master could not be reached and
     * {@code laterIfUnreachable} allows that: the first heartbeat that gets through mounts it.
     */
    boolean mount(String name, Transport primary, MemorySegment memory, boolean laterIfUnreachable) {
        synchronized (lock) {
            OwnSegment s = new OwnSegment(name, memory);
            if (primary != null) {
                s.servedBy.put(primary, primary.expose(name, memory, s.grantKey));
            }
            for (Transport t : transports.all()) {
                if (t != primary) {
                    s.serveVia(t);
                }
            }
            if (s.servedBy.isEmpty()) {
                throw new StoreException(ErrorCode.TRANSFER_FAIL, "no transport here can serve segment " + name);
            }
            return mount(s, laterIfUnreachable);
        }
    }

    /**
     * Exposes device memory through every bound transport that serves its kind, then mounts it
     * (the master records its kind). INVALID_PARAMS, naming what would serve it, where none does.
     */
    boolean mountDevice(String name, DeviceBuffer memory) {
        synchronized (lock) {
            OwnSegment s = new OwnSegment(name, memory);
            List<Transport> bound = transports.all();
            for (Transport t : bound) {
                s.serveVia(t);
            }
            if (s.servedBy.isEmpty()) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "no transport bound here serves " + memory.kind()
                        + " memory (bound: " + (bound.isEmpty() ? "none"
                                : String.join(", ", bound.stream().map(Transport::protocol).toList()))
                        + "), so segment " + name + " (" + memory + ") cannot be mounted. Device segments are served by "
                        + "the local transport (bundle org.mooncake.osgi.transport.local) once a DeviceMemory of that "
                        + "kind is bound to it (" + DeviceMemories.PROVIDER + "), or by a ucx transport built with CUDA "
                        + "(UCX with CUDA is not verified on any machine here); tcp and shm move host memory only");
            }
            return mount(s, false);
        }
    }

    /** Mounts an exposed segment; under {@link #lock}. */
    private boolean mount(OwnSegment s, boolean laterIfUnreachable) {
        boolean mountedNow = true;
        try {
            registration = master.heartbeat(clientId);
            master.mountSegment(s.descriptor(clientId));
        } catch (RuntimeException e) {
            if (!(laterIfUnreachable && e instanceof StoreException se && se.errorCode() == ErrorCode.RPC_FAIL)) {
                s.withdrawEverywhere();
                throw e;
            }
            registration = 0;
            mountedNow = false;
            notContributing.put(s.name, "not mounted yet: the master could not be reached (" + e.getMessage()
                    + "); mounted by the first heartbeat that reaches it");
            LOG.log(Level.WARNING, "{0}; segment {1} is mounted once the master answers", e.getMessage(), s.name);
        }
        own.put(s.name, s);
        return mountedNow;
    }

    /** The master forgets the segment before its bytes stop being served. */
    void unmount(String name) {
        synchronized (lock) {
            OwnSegment s = own.get(name);
            if (s == null) {
                throw new StoreException(ErrorCode.SEGMENT_NOT_FOUND, "this client has no segment " + name);
            }
            master.unmountSegment(clientId, name);
            forget(s);
        }
    }

    /** Withdraws every segment; false when the master could not be reached (they are withdrawn all the same). */
    boolean unmountAll() {
        boolean reached = true;
        synchronized (lock) {
            for (OwnSegment s : List.copyOf(own.values())) {
                try {
                    unmount(s.name);
                } catch (RuntimeException e) {
                    forget(s); // the master is gone or forgot it: stop serving it all the same
                    reached &= !(e instanceof StoreException se && se.errorCode() == ErrorCode.RPC_FAIL);
                }
            }
        }
        return reached;
    }

    /**
     * A transport was bound: it serves every segment it can from now on, and the master learns
     * its endpoints. Without this a transport restarted by a bundle update served nothing, and
     * the master went on naming the old one's address, so other processes could no longer read
     * this client's segments.
     */
    void transportBound(Transport t) {
        synchronized (lock) {
            for (OwnSegment s : own.values()) {
                if (!s.servedBy.containsKey(t) && s.serveVia(t)) {
                    tell(s, true);
                }
            }
        }
    }

    /**
     * A transport is going away (its bundle stops): the master stops naming it first, so that
     * new reads take the segments' other endpoints, then it stops serving them. The objects stay.
     */
    void transportUnbound(Transport t) {
        synchronized (lock) {
            for (OwnSegment s : own.values()) {
                if (s.servedBy.remove(t) != null) {
                    tell(s, true);
                    OwnSegment.withdraw(t, s.name);
                }
            }
        }
    }

    private void forget(OwnSegment s) {
        own.remove(s.name);
        untold.remove(s.name);
        notContributing.remove(s.name);
        s.withdrawEverywhere();
    }

    /**
     * Mounts {@code s} again after the master forgot it, with the endpoints of now; one a previous
     * attempt mounted already counts, and then the master is told its endpoints, which may have
     * changed since. A refusal, or a master that stopped answering, is recorded and tried again at
     * the next heartbeat.
     */
    private void mountAgain(OwnSegment s) {
        SegmentDescriptor d = s.descriptor(clientId);
        if (d.endpoints().isEmpty()) {
            idle(s.name, SERVED_BY_NOTHING); // mounted when a transport serves it again
            return;
        }
        try {
            master.mountSegment(d);
            untold.remove(s.name);
        } catch (StoreException e) {
            if (e.errorCode() != ErrorCode.SEGMENT_ALREADY_EXISTS) {
                idle(s.name, "the master did not mount it again (" + e.getMessage() + "); tried again at each heartbeat");
                return;
            }
            untold.add(s.name);
        } catch (RuntimeException e) {
            idle(s.name, "mounting it again failed (" + e + "); tried again at each heartbeat");
            return;
        }
        if (notContributing.remove(s.name) != null) {
            LOG.log(Level.INFO, "segment {0} of client {1} is mounted and contributes now", s.name, clientId);
        }
    }

    /**
     * Tells the master how {@code s} is reached now; true when it heard it. A segment no
     * transport serves keeps the endpoints the master had (reads of it fail cleanly) until one
     * serves it again.
     */
    private boolean tell(OwnSegment s, boolean firstTry) {
        SegmentDescriptor d = s.descriptor(clientId);
        if (d.endpoints().isEmpty()) {
            LOG.log(Level.WARNING, "segment {0} is served by no transport now; its objects cannot be read until a "
                    + "transport that can serve it is started", s.name);
            untold.add(s.name);
            return false;
        }
        try {
            master.updateSegmentEndpoints(d);
            untold.remove(s.name);
            notContributing.remove(s.name); // the master holds it, and it is served again
            return true;
        } catch (StoreException e) {
            if (e.errorCode() == ErrorCode.SEGMENT_NOT_FOUND && registration != 0) {
                mountAgain(s); // it had no endpoint when the master came back, or another caller unmounted it
                return true;
            }
            if (firstTry) {
                LOG.log(Level.WARNING, "could not tell the master that segment {0} is now reached via {1} "
                        + "(told again with each heartbeat): {2}", s.name,
                        String.join(",", d.endpoints().stream().map(SegmentEndpoint::protocol).toList()), e.getMessage());
            }
            untold.add(s.name);
            return false;
        }
    }
}
