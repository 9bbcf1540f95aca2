package org.mooncake.osgi.store.client.impl;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * The {@link DeviceMemory} services on offer, by kind, as {@link Transports} holds transports:
 * bound and unbound from any thread (DS), the data path reads an immutable map; where two of a
 * kind are bound the one bound last moves the bytes, and the other takes over when it goes.
 */
final class DeviceMemories {
    /** Names what provides device memory, for every message that says none is bound. */
    static final String PROVIDER = "bundle org.mooncake.osgi.device.cuda, which registers one only where the NVIDIA "
            + "driver (libcuda.so.1) loads and sees a GPU";

    private final List<DeviceMemory> bound = new ArrayList<>();
    private volatile Map<MemoryKind, DeviceMemory> byKind = Map.of();

    synchronized void add(DeviceMemory memory) {
        bound.add(memory);
        index();
    }

    synchronized void remove(DeviceMemory memory) {
        bound.remove(memory);
        index();
    }

    private void index() {
        Map<MemoryKind, DeviceMemory> m = new EnumMap<>(MemoryKind.class);
        bound.forEach(d -> m.put(d.kind(), d));
        byKind = Map.copyOf(m);
    }

    /**
     * The service that moves {@code buffer}'s bytes: INVALID_PARAMS for host memory (use the
     * MemorySegment calls), where none of its kind is bound (naming what provides one), or for a
     * device index that service does not have.
     */
    DeviceMemory of(DeviceBuffer buffer, String what) {
        StoreException.require(buffer != null, what + " is null");
        MemoryKind kind = buffer.kind();
        if (!kind.isDevice()) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, what + " " + buffer + " is host memory: pass it as a "
                    + "MemorySegment (putFrom, getInto, mountSegment)");
        }
        DeviceMemory d = byKind.get(kind);
        if (d == null) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "no DeviceMemory service for " + kind + " memory is bound "
                    + "to this client, so " + what + " " + buffer + " cannot be moved: it is provided by " + PROVIDER);
        }
        if (buffer.device() >= d.deviceCount()) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, what + " " + buffer + " is on device " + buffer.device()
                    + " but the " + kind + " DeviceMemory serves " + d.deviceCount() + " device(s)");
        }
        return d;
    }
}
