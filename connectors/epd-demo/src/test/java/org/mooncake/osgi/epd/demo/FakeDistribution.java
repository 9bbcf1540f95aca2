package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A distribution whose {@code bin/mooncake start} runs a {@link FakeNode} (the same profiles and
 * variables as the real one), so the whole demo runs in tests without the workers: processes,
 * health waits, cases, load, probes, report and stop.
 */
final class FakeDistribution {
    private FakeDistribution() {
    }

    static Path create(Path home, String faults) throws IOException {
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("features"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path script = home.resolve("bin/mooncake");
        Files.writeString(script, "#!/usr/bin/env bash\nexec '" + java + "' -Xmx64m -XX:TieredStopAtLevel=1 -Dmooncake.home='"
                + home + "' -Dfake.faults='" + faults + "' -cp '" + System.getProperty("java.class.path") + "' "
                + FakeNode.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(home.resolve("features/profiles"));
        String worker = "\"master\": null, \"http.port\": null, \"models\": null, \"client.ttl.ms\": 10000";
        Map<String, String> variables = new LinkedHashMap<>();
        variables.put("master", "\"rpc.port\": 50051, \"admin.port\": 9003, \"client.ttl.ms\": 10000");
        variables.put("storage", "\"master\": null, \"admin.port\": 0, \"segment.size\": 268435456");
        for (String role : List.of("epd-encoder", "epd-prefill", "epd-decode")) {
            variables.put(role, worker);
        }
        // the aggregated worker has no store: no master variable, which the demo must then not set
        variables.put("epd-aggregated", "\"http.port\": null, \"models\": null");
        variables.put("epd-proxy", "\"http.port\": null, \"encoders\": null, \"prefills\": null, \"decodes\": null,"
                + " \"probe.interval.ms\": 5000");
        for (var p : variables.entrySet()) {
            Files.writeString(home.resolve("features/profiles/" + p.getKey() + ".json"), "{\"id\": \"x:profile-" + p.getKey()
                    + ":osgifeature:1\", \"variables\": {" + p.getValue() + "}}");
        }
        return home;
    }
}
