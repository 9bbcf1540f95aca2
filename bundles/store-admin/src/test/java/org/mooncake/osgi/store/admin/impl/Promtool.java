package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * Prometheus' own checker, {@code promtool check metrics} (Debian package {@code prometheus}):
 * it parses an exposition as a Prometheus server would and lints it (counters without
 * {@code _total}, missing help, units that are not base units, ...). A test that needs it is
 * skipped, with the reason, where it is not installed, and fails there instead when
 * {@code mooncake.promtool.required} is true (system property or MOONCAKE_PROMTOOL_REQUIRED), so
 * that CI never passes by skipping.
 */
final class Promtool {
    static final String REQUIRED = "mooncake.promtool.required";

    /** What promtool said about one exposition. */
    record Verdict(int status, String output) {
    }

    private final Path binary;

    private Promtool(Path binary) {
        this.binary = binary;
    }

    /** The promtool on the PATH, or a skipped (or, where required, failed) test. */
    static Promtool onPath() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "promtool");
            if (Files.isExecutable(p)) {
                return new Promtool(p);
            }
        }
        String why = "promtool is not on the PATH (apt-get install prometheus)";
        if (Boolean.getBoolean(REQUIRED) || "true".equalsIgnoreCase(System.getenv("MOONCAKE_PROMTOOL_REQUIRED"))) {
            fail(REQUIRED + " is true but " + why);
        }
        Assumptions.abort("skipped: " + why);
        throw new AssertionError("unreachable");
    }

    /** Runs {@code promtool check metrics} over {@code exposition} on its standard input. */
    Verdict check(String exposition) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not end within 60 s");
        return new Verdict(p.exitValue(), output);
    }
}
