package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportSwapTest {
    @TempDir
    Path dir;

    @Test
    void theTcpTransportsJarIsFoundInTheDistributionsSystemFolder() throws IOException {
        Path versioned = Files.createDirectories(dir.resolve("system/org/mooncake/osgi/transport-tcp/1.2.3"));
        Files.writeString(versioned.resolve("transport-tcp-1.2.3.pom"), "");
        Path jar = Files.writeString(versioned.resolve("transport-tcp-1.2.3.jar"), "jar");
        assertEquals(jar, TransportSwap.jar(dir));
    }

    @Test
    void aDistributionWithoutItSaysWhereItLooked() throws IOException {
        Files.createDirectories(dir.resolve("system/org/mooncake/osgi/transport-tcp"));
        IOException e = assertThrows(IOException.class, () -> TransportSwap.jar(dir));
        assertTrue(e.getMessage().contains("transport-tcp"), e.getMessage());
    }

    @Test
    void undeployRemovesASwappedInTransportAndLeavesOtherJars() throws IOException {
        Cluster.Node n = new Cluster.Node("n", "storage", List.of(), dir);
        Files.createDirectories(n.deploy());
        Files.writeString(n.deploy().resolve("transport-tcp-1.0.0-SNAPSHOT.jar"), "jar");
        Files.writeString(n.deploy().resolve("policy-cost-aware-1.0.0-SNAPSHOT.jar"), "jar");
        TransportSwap.undeploy(n);
        try (var left = Files.list(n.deploy())) {
            assertEquals(List.of("policy-cost-aware-1.0.0-SNAPSHOT.jar"),
                    left.map(p -> p.getFileName().toString()).toList());
        }
    }
}
