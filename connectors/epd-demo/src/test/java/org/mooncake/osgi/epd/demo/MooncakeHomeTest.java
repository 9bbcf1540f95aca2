package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MooncakeHomeTest {
    @Test
    void aHomeHasBinMooncakeAndAFolderWithoutItIsRefusedSayingHowToGetOne(@TempDir Path dir) throws Exception {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MooncakeHome.check(dir, "test"));
        assertTrue(e.getMessage().startsWith("no bin/mooncake under " + dir + " (from test)"), e.getMessage());
        assertTrue(e.getMessage().contains("./mooncake demo epd builds it"), e.getMessage());
        Files.createDirectories(dir.resolve("bin"));
        Files.writeString(dir.resolve("bin/mooncake"), "#!/bin/sh\n");
        assertEquals(dir, MooncakeHome.check(dir.resolve("bin/.."), "test"), "absolute and normalized");
    }
}
