package org.mooncake.osgi.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that owned a segment file is killed: the next shm transport to start in that folder
 * removes the file, and never one whose owner lives, in another process or in this one.
 */
class OrphanedSegmentTest {
    @TempDir
    Path dir;

    private Process holder(Path segment) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), LockHolder.class.getName(), segment.toString())
                .redirectErrorStream(true).start();
        String first = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        assertEquals("locked", first);
        return p;
    }

    @Test
    void theSegmentFileOfAKilledOwnerIsRemovedAndALiveOnesIsKept() throws Exception {
        Path orphan = dir.resolve("mooncake-killed.seg");
        Path stillOwned = dir.resolve("mooncake-alive.seg");
        Path unclaimed = dir.resolve("mooncake-older-version.seg");
        Files.write(unclaimed, new byte[64]);
        Process killed = holder(orphan);
        Process alive = holder(stillOwned);
        try (Arena arena = Arena.ofShared(); ShmTransport here = new ShmTransport(ShmTransport.in(dir.toString()))) {
            here.allocateSegment("mine", 1 << 20, arena);
            assertTrue(Files.exists(orphan), "its owner still runs");

            killed.destroyForcibly();
            assertTrue(killed.waitFor(30, TimeUnit.SECONDS));
            try (ShmTransport next = new ShmTransport(ShmTransport.in(dir.toString()))) {
                assertFalse(Files.exists(orphan), "left by a killed process: removed");
                assertFalse(Files.exists(OwnerLock.lockFileOf(orphan)));
                assertTrue(Files.exists(stillOwned), "another process still owns it");
                assertTrue(Files.exists(unclaimed), "no lock file: nothing tells whether its owner lives");
                try (var files = Files.list(dir)) {
                    assertEquals(1, files.filter(f -> f.toString().endsWith(".seg") && !f.equals(stillOwned)
                            && !f.equals(unclaimed)).count(), "this JVM's own segment stays");
                }
            }
            here.withdraw("mine");
            try (var files = Files.list(dir)) {
                assertEquals(3, files.count(), "withdrawn: its segment and lock file gone; the other owner's two files and the old one stay");
            }
        } finally {
            alive.destroyForcibly().waitFor();
        }
    }
}
