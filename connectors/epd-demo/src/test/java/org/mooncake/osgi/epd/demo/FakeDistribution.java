package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

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
        String worker = "{\"config\": {\"w\": {\"m\": \"${master}\", \"p\": \"${http.port}\", \"models\": \"${models}\","
                + " \"ttl\": \"${client.ttl.ms:10000}\"}}}";
        Files.writeString(home.resolve("features/profiles.json"), "{\n"
                + "\"master\": {\"config\": {\"m\": {\"port\": \"${rpc.port:50051}\", \"admin\": \"${admin.port:9003}\","
                + " \"ttl\": \"${client.ttl.ms:10000}\"}}},\n"
                + "\"storage\": {\"config\": {\"s\": {\"m\": \"${master}\", \"admin\": \"${admin.port:0}\","
                + " \"size\": \"${segment.size:268435456}\"}}},\n"
                + "\"epd-encoder\": " + worker + ",\n\"epd-prefill\": " + worker + ",\n\"epd-decode\": " + worker + ",\n"
                // the aggregated worker has no store: no master variable, which the demo must then not set
                + "\"epd-aggregated\": {\"config\": {\"w\": {\"p\": \"${http.port}\", \"models\": \"${models}\"}}},\n"
                + "\"epd-proxy\": {\"config\": {\"p\": {\"p\": \"${http.port}\", \"e\": \"${encoders}\", \"f\": \"${prefills}\","
                + " \"d\": \"${decodes}\", \"i\": \"${probe.interval.ms:5000}\"}}}\n}\n");
        return home;
    }
}
