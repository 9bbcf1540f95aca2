package org.mooncake.osgi.store.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Segment memory backed by transparent huge pages where Linux offers them. A segment is read
 * and written in megabytes by the kernel's socket copies and by memcpy; with 4 KiB pages each
 * megabyte is 256 TLB entries, and in a VM each miss walks two page tables. Measured on our
 * 2-vCPU VM, a 1 MiB tcp get from a huge-page segment took 0.27–0.35 ms against 0.47–0.49 ms
 * (docs/benchmarks.md). Anonymous memory from {@code mmap}, aligned to 2 MiB and marked
 * {@code MADV_HUGEPAGE} (so it also works where the system setting is "madvise"), touched once
 * like {@link Arena#allocate} memory, and unmapped when the arena closes. Anywhere this cannot
 * be done (not Linux, no symbol, a failed call) it is plain {@code arena.allocate}.
 */
public final class HugePages {
    private static final System.Logger LOG = System.getLogger(HugePages.class.getName());
    /** The x86-64 and aarch64 (4 KiB base page) huge page; smaller segments are not worth one. */
    public static final long HUGE_PAGE = 2L << 20;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final Calls CALLS = Calls.find();

    private HugePages() {
    }

    private record Calls(MethodHandle mmap, MethodHandle madvise, MethodHandle munmap) {
        static Calls find() {
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                return new Calls(
                        linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG)),
                        linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)),
                        linker.downcallHandle(libc.find("munmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG)));
            } catch (RuntimeException | Error noNativeAccess) {
                LOG.log(System.Logger.Level.INFO, "segments use plain off-heap memory: {0}", noNativeAccess.toString());
                return null;
            }
        }
    }

    /** Zeroed memory of {@code sizeBytes}, freed when {@code arena} closes; huge pages where possible. */
    public static MemorySegment allocate(long sizeBytes, Arena arena) {
        if (CALLS == null || sizeBytes < HUGE_PAGE) {
            return arena.allocate(sizeBytes, 64);
        }
        long span = (sizeBytes + HUGE_PAGE - 1) & -HUGE_PAGE;
        long mapped = span + HUGE_PAGE; // room to start on a huge-page boundary
        MemorySegment base;
        try {
            base = (MemorySegment) CALLS.mmap.invokeExact(MemorySegment.NULL, mapped, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L);
        } catch (Throwable t) {
            return arena.allocate(sizeBytes, 64);
        }
        if (base.address() == -1L || base.address() == 0L) { // MAP_FAILED
            return arena.allocate(sizeBytes, 64);
        }
        long start = (base.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
        MemorySegment aligned = MemorySegment.ofAddress(start).reinterpret(span);
        try {
            int ignored = (int) CALLS.madvise.invokeExact(aligned, span, MADV_HUGEPAGE); // a hint: THP may be off
        } catch (Throwable t) {
            // still ordinary memory
        }
        MemorySegment owned = MemorySegment.ofAddress(start).reinterpret(sizeBytes, arena, s -> unmap(base, mapped));
        owned.fill((byte) 0); // fault every page in now, as Arena.allocate does, not on the first transfer
        return owned;
    }

    private static void unmap(MemorySegment base, long length) {
        try {
            int ignored = (int) CALLS.munmap.invokeExact(base, length);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "munmap of a segment failed: {0}", t.toString());
        }
    }
}
