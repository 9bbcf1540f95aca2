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
    void readsTheVariablesOfAProfileAndOfTheFeaturesItComposes(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("features/profiles"));
        Files.writeString(home.resolve("features/http.json"), "{\"id\": \"x:http:osgifeature:1\", \"variables\": {\"tls\": false}}");
        Files.writeString(home.resolve("features/profiles/master.json"), """
                {"id": "x:profile-master:osgifeature:1", "variables": {"rpc.port": 50051, "bind": null},
                 "extensions": {"mooncake-profile": {"type": "json", "json": {"features": ["runtime"]}}}}""");
        Files.writeString(home.resolve("features/profiles/epd-proxy.json"), """
                {"id": "x:profile-epd-proxy:osgifeature:1", /* comments are allowed */
                 "variables": {"http.port": 8000, "encoders": "", "probe.interval.ms": 5000},
                 "extensions": {"mooncake-profile": {"type": "json", "json": {"features": ["runtime", "http"]}}}}""");
        assertEquals(Set.of("rpc.port", "bind"), ProfileVars.of(home, "master"));
        assertEquals(Set.of("http.port", "encoders", "probe.interval.ms", "tls"), ProfileVars.of(home, "epd-proxy"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ProfileVars.of(home, "epd-decode"));
        assertTrue(e.getMessage().contains("no profile epd-decode"), e.getMessage());
    }
}
