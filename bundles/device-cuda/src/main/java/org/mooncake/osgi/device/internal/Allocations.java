package org.mooncake.osgi.device.internal;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * The live allocations of a device memory service, per device, by (unsigned) address: what makes
 * a copy refuse a buffer the service did not allocate, has freed, or that runs past its
 * allocation, before any driver sees the pointer. Thread-safe.
 *
 * @param <H> what the service keeps with each allocation (the simulator: its hidden segment)
 */
public final class Allocations<H> {
    /** An allocation as {@code allocate} returned it, and what the service keeps with it. */
    public record Allocation<H>(DeviceBuffer buffer, H handle) {
    }

    private final MemoryKind kind;
    private final List<ConcurrentSkipListMap<Long, Allocation<H>>> byDevice;
    private final AtomicLong liveBytes = new AtomicLong();

    public Allocations(MemoryKind kind, int devices) {
        this.kind = kind;
        var maps = new ArrayList<ConcurrentSkipListMap<Long, Allocation<H>>>(devices);
        for (int i = 0; i < devices; i++) {
            maps.add(new ConcurrentSkipListMap<>(Long::compareUnsigned));
        }
        this.byDevice = List.copyOf(maps);
    }

    public int devices() {
        return byDevice.size();
    }

    /** Refuses a device index out of range. */
    public void checkDevice(int device) {
        if (device < 0 || device >= byDevice.size()) {
            throw new IllegalArgumentException("device " + device + " is not one of this service's "
                    + byDevice.size() + " (0.." + (byDevice.size() - 1) + ")");
        }
    }

    /** Refuses a size an allocation cannot have. */
    public static void checkAllocationSize(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes: the size must be positive");
        }
    }

    public void add(DeviceBuffer buffer, H handle) {
        checkDevice(buffer.device());
        if (byDevice.get(buffer.device()).putIfAbsent(buffer.address(), new Allocation<>(buffer, handle)) != null) {
            throw new IllegalStateException("the driver returned " + buffer + " twice");
        }
        liveBytes.addAndGet(buffer.byteSize());
    }

    /**
     * Removes the allocation {@code buffer} is, exactly.
     *
     * @throws IllegalArgumentException if it is not a live allocation (freed already, a slice of
     *         one, another service's)
     */
    public Allocation<H> remove(DeviceBuffer buffer) {
        checkKind(buffer);
        checkDevice(buffer.device());
        var map = byDevice.get(buffer.device());
        Allocation<H> a = map.get(buffer.address());
        if (a == null || !a.buffer().equals(buffer) || !map.remove(buffer.address(), a)) {
            throw new IllegalArgumentException("cannot free " + buffer + ": " + (a == null
                    ? "it is not memory this service allocated, or it was freed already"
                    : "free the buffer allocate returned (" + a.buffer() + "), not a slice of it"));
        }
        liveBytes.addAndGet(-buffer.byteSize());
        return a;
    }

    /**
     * The live allocation that holds all of {@code buffer}.
     *
     * @throws IllegalArgumentException if there is none
     */
    public Allocation<H> resolve(DeviceBuffer buffer) {
        checkKind(buffer);
        checkDevice(buffer.device());
        Map.Entry<Long, Allocation<H>> e = byDevice.get(buffer.device()).floorEntry(buffer.address());
        if (e == null || !e.getValue().buffer().contains(buffer)) {
            throw new IllegalArgumentException(buffer + " is not within memory this service allocated and has not freed"
                    + (e == null ? "" : " (the nearest allocation below it is " + e.getValue().buffer() + ")"));
        }
        return e.getValue();
    }

    private void checkKind(DeviceBuffer buffer) {
        if (buffer.kind() != kind) {
            throw new IllegalArgumentException(buffer + " is " + buffer.kind() + " memory, this service's is " + kind);
        }
    }

    /** Removes and returns every live allocation (closing the service). */
    public List<Allocation<H>> drain() {
        var all = new ArrayList<Allocation<H>>();
        for (var map : byDevice) {
            Map.Entry<Long, Allocation<H>> e;
            while ((e = map.pollFirstEntry()) != null) {
                all.add(e.getValue());
                liveBytes.addAndGet(-e.getValue().buffer().byteSize());
            }
        }
        return all;
    }

    public int count() {
        return byDevice.stream().mapToInt(Map::size).sum();
    }

    public long bytes() {
        return liveBytes.get();
    }

    /** Refuses a copy between ranges of different sizes. */
    public static void checkSameSize(long source, long target) {
        if (source != target) {
            throw new IllegalArgumentException("a copy needs equal sizes: the source has " + source
                    + " bytes, the target " + target + " (slice the larger)");
        }
    }

    /** Refuses a read-only host target. */
    public static void checkWritable(MemorySegment target) {
        if (target.isReadOnly()) {
            throw new IllegalArgumentException("the host target " + target + " is read-only");
        }
    }

    /** Refuses a device-to-device copy between overlapping ranges. */
    public static void checkNoOverlap(DeviceBuffer source, DeviceBuffer target) {
        if (source.overlaps(target)) {
            throw new IllegalArgumentException("cannot copy " + source + " to " + target + ": they overlap");
        }
    }
}
