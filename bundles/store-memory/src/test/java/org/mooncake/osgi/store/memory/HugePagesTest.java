package org.mooncake.osgi.store.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.junit.jupiter.api.Test;

class HugePagesTest {
    private static final boolean LINUX = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");

    @Test
    void aLargeSegmentIsZeroedUsableAndOnAHugePageBoundaryOnLinux() {
        long size = 5 * HugePages.HUGE_PAGE + 12345;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = HugePages.allocate(size, arena);
            assertEquals(size, s.byteSize());
            assertEquals(-1, s.mismatch(arena.allocate(size)), "zeroed");
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, size - 8, 42L);
            assertEquals(42L, s.get(ValueLayout.JAVA_LONG_UNALIGNED, size - 8));
            if (LINUX) {
                assertEquals(0, s.address() % HugePages.HUGE_PAGE, "aligned so that whole huge pages fit");
            }
        }
    }

    @Test
    void theMappingIsGoneWhenTheArenaCloses() throws IOException {
        MemorySegment s;
        String mapping;
        try (Arena arena = Arena.ofShared()) {
            s = HugePages.allocate(3 * HugePages.HUGE_PAGE, arena);
            mapping = LINUX ? mappingOf(s.address()) : null;
            if (LINUX) {
                assertTrue(mapping != null, "mapped while the arena is open");
            }
        }
        assertFalse(s.scope().isAlive());
        if (LINUX) {
            // the range itself may be mapped again at once by another thread (a JIT or GC thread's
            // malloc): what must be gone is this mapping, with its bounds
            assertFalse(mapping.equals(mappingOf(s.address())), "unmapped once it closed: " + mapping);
        }
    }

    @Test
    void aSmallSegmentIsPlainArenaMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = HugePages.allocate(4096, arena);
            assertEquals(4096, s.byteSize());
            assertEquals(0, s.address() % 64);
            assertEquals(-1, s.mismatch(arena.allocate(4096)));
        }
    }

    /** The bounds of this process's mapping that holds an address (from /proc/self/maps), or null. */
    private static String mappingOf(long address) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String bounds = line.substring(0, line.indexOf(' '));
            String[] range = bounds.split("-");
            if (Long.parseUnsignedLong(range[0], 16) <= address && address < Long.parseUnsignedLong(range[1], 16)) {
                return bounds;
            }
        }
        return null;
    }
}
