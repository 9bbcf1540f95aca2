package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.mooncake.osgi.store.memory.HostIdentity;
import org.mooncake.osgi.store.master.SegmentEndpoint;

/**
 * The owner side, on the worker thread: memory UCX allocated for segments, the segments exposed,
 * and the control page that says which of them are still served.
 *
 * <p>Every exposed segment has a word in the control page (memory UCX allocated, so one-sided over
 * shared memory) holding a random token; peers read it after each transfer and fail it unless it
 * still holds the token their address carries. Withdrawing zeroes the word. Unmapping alone would
 * not do: a peer whose rkey mapped a shared-memory segment keeps its mapping, and UCX's software
 * RMA copies to whatever address a request names.
 */
final class Exposures {
    private static final int SLOTS = 8192;
    private final Worker w;
    private final long graceNanos;
    private final Random tokens = new SecureRandom();
    private MemorySegment controlMemh;
    private MemorySegment control;
    private byte[] controlRkey;
    private final BitSet used = new BitSet(SLOTS);
    private final Map<String, Exposed> exposed = new HashMap<>();
    private final Map<Long, Allocation> allocations = new HashMap<>();
    /** Allocations (by address) that peers were ever given an address for. */
    private final java.util.Set<Long> everExposed = new java.util.HashSet<>();

    /** Memory UCX allocated (ucp_mem_map with ALLOCATE), mapped until the client's arena lets go of it. */
    record Allocation(MemorySegment memh, long address, long size) {
    }

    private record Exposed(String name, MemorySegment memh, boolean registered, Allocation allocation, long base,
            long size, int slot, SegmentEndpoint endpoint) {
    }

    Exposures(Worker w, long graceNanos) {
        this.w = w;
        this.graceNanos = graceNanos;
        Allocation page = map(0, 8L * SLOTS, Ucx.MEM_MAP_ALLOCATE);
        controlMemh = page.memh;
        control = MemorySegment.ofAddress(page.address).reinterpret(page.size);
        control.fill((byte) 0);
        controlRkey = Ucx.rkeyPack(w.context.handle, controlMemh);
    }

    /** ucp_mem_map: registers {@code address} for {@code length} bytes, or allocates when {@code flags} say so. */
    private Allocation map(long address, long length, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Ucx.MEM_MAP_PARAMS_SIZE);
            p.set(JAVA_LONG, 0, Ucx.MEM_MAP_PARAM_FIELD_ADDRESS | Ucx.MEM_MAP_PARAM_FIELD_LENGTH
                    | Ucx.MEM_MAP_PARAM_FIELD_FLAGS);
            p.set(JAVA_LONG, 8, address);
            p.set(JAVA_LONG, 16, length);
            p.set(JAVA_INT, 24, flags);
            MemorySegment out = a.allocate(ADDRESS);
            Ucx.check(Ucx.memMap(w.context.handle, p, out), (flags & Ucx.MEM_MAP_ALLOCATE) != 0
                    ? "ucp_mem_map cannot allocate " + length + " bytes" : "ucp_mem_map cannot register " + length + " bytes");
            MemorySegment memh = out.get(ADDRESS, 0);
            if (address == 0) {
                MemorySegment attr = a.allocate(Ucx.MEM_ATTR_SIZE);
                attr.set(JAVA_LONG, 0, Ucx.MEM_ATTR_FIELD_ADDRESS);
                Ucx.check(Ucx.memQuery(memh, attr), "ucp_mem_query");
                address = attr.get(JAVA_LONG, 8);
            }
            return new Allocation(memh, address, length);
        }
    }

    /** New memory from UCX; the context stays until it is released. */
    Allocation allocate(long size) {
        Allocation a = map(0, size, Ucx.MEM_MAP_ALLOCATE);
        allocations.put(a.address, a);
        w.context.retain();
        return a;
    }

    SegmentEndpoint expose(String name, MemorySegment memory) {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("ucx exposes native memory only (" + name + ")");
        }
        long base = memory.address();
        long size = memory.byteSize();
        Exposed old = exposed.get(name);
        if (old != null) {
            if (old.base == base && old.size == size) {
                return old.endpoint;
            }
            withdraw(name);
        }
        int slot = used.nextClearBit(0);
        if (slot >= SLOTS) {
            throw new IllegalStateException("ucx transport serves " + SLOTS + " segments at most");
        }
        Allocation owner = containing(base, size);
        MemorySegment memh = owner != null ? owner.memh : map(base, size, 0).memh;
        byte[] rkey;
        try {
            rkey = Ucx.rkeyPack(w.context.handle, memh);
        } catch (RuntimeException e) {
            if (owner == null) {
                Ucx.memUnmap(w.context.handle, memh);
            }
            throw e;
        }
        long token;
        do {
            token = tokens.nextLong();
        } while (token == 0);
        used.set(slot);
        control.setAtIndex(JAVA_LONG, slot, token);
        UcxAddress address = new UcxAddress(HostIdentity.get(), w.address, base, size, rkey,
                control.address() + 8L * slot, controlRkey, token);
        SegmentEndpoint endpoint = new SegmentEndpoint(UcxTransport.PROTOCOL, address.encode(), name);
        if (owner != null) {
            everExposed.add(owner.address);
        }
        exposed.put(name, new Exposed(name, memh, owner == null, owner, base, size, slot, endpoint));
        return endpoint;
    }

    private Allocation containing(long base, long size) {
        for (Allocation a : allocations.values()) {
            if (base >= a.address && base + size <= a.address + a.size) {
                return a;
            }
        }
        return null;
    }

    void withdraw(String name) {
        Exposed e = exposed.remove(name);
        if (e == null) {
            return;
        }
        control.setAtIndex(JAVA_LONG, e.slot, 0); // peers fail their next request against it
        used.clear(e.slot);
        if (e.registered) {
            Ucx.memUnmap(w.context.handle, e.memh);
        }
    }

    /**
     * The client let go of memory UCX allocated (its arena closed). Withdrawn first if still
     * served; unmapped after a grace period, so that a request a peer issued before it learnt of
     * the withdrawal finds memory, not a hole, when our worker serves it.
     */
    void release(Allocation a) {
        if (allocations.remove(a.address) == null) {
            return;
        }
        for (Exposed e : List.copyOf(exposed.values())) {
            if (e.allocation == a) {
                withdraw(e.name);
            }
        }
        Runnable unmap = () -> {
            w.context.unmap(a.memh);
            w.context.release();
        };
        if (everExposed.remove(a.address)) {
            w.schedule(System.nanoTime() + graceNanos, unmap);
        } else {
            unmap.run();
        }
    }

    /**
     * The transport closes: every segment is withdrawn and the control page unmapped (zeroed first:
     * peers that mapped it read "withdrawn"). Memory UCX allocated that the client still holds stays
     * mapped, with the context, until the client's arena closes.
     */
    void close() {
        for (String name : List.copyOf(exposed.keySet())) {
            withdraw(name);
        }
        control.fill((byte) 0);
        Ucx.memUnmap(w.context.handle, controlMemh);
    }

    int exposedCount() {
        return exposed.size();
    }
}
