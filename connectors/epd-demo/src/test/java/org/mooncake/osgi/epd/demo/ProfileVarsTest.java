package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileVarsTest {
    @Test
    void readsTheVariablesOfOneProfileWithOrWithoutDefaults(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("features"));
        Files.writeString(home.resolve("features/profiles.json"), """
                {"master": {"features": ["runtime"], "config": {"a": {"port": "${rpc.port:50051}", "x": "${bind}"}}},
                 "epd-proxy": {"framework": {"org.osgi.service.http.port": "${http.port:8000}"},
                               "config": {"p": {"encode.urls": "${encoders}", "t": "${probe.interval.ms:5000}"}}}}
                """);
        assertEquals(Set.of("rpc.port", "bind"), ProfileVars.of(home, "master"));
        assertEquals(Set.of("http.port", "encoders", "probe.interval.ms"), ProfileVars.of(home, "epd-proxy"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ProfileVars.of(home, "epd-decode"));
        assertTrue(e.getMessage().contains("no profile epd-decode"), e.getMessage());
    }
}
