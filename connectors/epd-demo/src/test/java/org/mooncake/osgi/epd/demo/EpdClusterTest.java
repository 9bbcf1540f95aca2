package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpdClusterTest {
    @Test
    void eachModeStartsWhatItsPathNeeds() {
        assertEquals(EnumSet.allOf(Role.class), EpdCluster.roles(DemoOptions.Mode.BOTH));
        assertEquals(EnumSet.of(Role.MASTER, Role.STORAGE, Role.ENCODER, Role.PREFILL, Role.DECODE, Role.PROXY),
                EpdCluster.roles(DemoOptions.Mode.EPD));
        assertEquals(EnumSet.of(Role.AGGREGATED), EpdCluster.roles(DemoOptions.Mode.AGGREGATED),
                "the aggregated worker needs no store");
    }

    @Test
    void aKilledNodeIsRelaunchedUnderANewInstanceAndEveryRuntimeFolderIsDeleted(@TempDir Path dir) throws Exception {
        Path home = FakeDistribution.create(dir.resolve("home"), "");
        DemoHttp http = new DemoHttp(Duration.ofSeconds(10));
        EpdCluster.Spec spec = new EpdCluster.Spec(home, dir.resolve("logs"), "t1", DemoModels.modelsVar(ModelSize.TINY),
                EnumSet.of(Role.MASTER, Role.STORAGE), null, Duration.ofSeconds(60), Map.of());
        try (Supervisor supervisor = new Supervisor(Duration.ofSeconds(5))) {
            EpdCluster cluster = EpdCluster.start(spec, supervisor, http);
            String firstUrl = cluster.url(Role.STORAGE);
            assertThrows(IllegalStateException.class, () -> cluster.relaunch(Role.STORAGE, supervisor, http),
                    "a live process is not replaced");
            cluster.process(Role.STORAGE).kill();
            assertFalse(cluster.alive(Role.STORAGE));
            ManagedProcess second = cluster.relaunch(Role.STORAGE, supervisor, http);
            assertTrue(cluster.alive(Role.STORAGE));
            assertEquals("epd-demo-t1-storage-2", cluster.instance(Role.STORAGE));
            assertNotEquals(firstUrl, cluster.url(Role.STORAGE), "a new admin port");
            assertEquals(dir.resolve("logs/storage-2.log"), second.log());
            assertTrue(Files.readString(second.log()).contains("master=127.0.0.1:"), "the same master");
            assertEquals(200, http.get(cluster.url(Role.STORAGE) + "/health", Duration.ofSeconds(5)).statusCode());
            supervisor.stopAll(); // then the clean-up the cluster registered
            try (Stream<Path> left = Files.list(home.resolve("runtime"))) {
                assertEquals(java.util.List.of(), left.toList(), "the dead first storage node's folder too");
            }
        }
    }
}
