package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The machine a run was measured on, for the JSON: figures mean little without it. */
public record MachineInfo(int cores, String cpu, long memoryBytes, String jvm, String os, String gitCommit,
        Boolean gitDirty) {

    public static MachineInfo detect(Path home) {
        String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        long memory = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean b ? b.getTotalMemorySize() : -1;
        Path checkout = checkout(home);
        String commit = checkout == null ? null : git(checkout, "rev-parse", "HEAD");
        String status = checkout == null ? null : git(checkout, "status", "--porcelain", "--untracked-files=no");
        return new MachineInfo(Runtime.getRuntime().availableProcessors(), cpuModel(), memory, jvm, os, commit,
                status == null ? null : !status.isBlank());
    }

    /** The source checkout: MOONCAKE_SOURCE, else the one this distribution was built in (distribution/target/mooncake). */
    private static Path checkout(Path home) {
        String env = System.getenv("MOONCAKE_SOURCE");
        for (Path p : new Path[] {env == null ? null : Path.of(env), home.resolve("../../..").normalize()}) {
            if (p != null && Files.exists(p.resolve(".git"))) {
                return p;
            }
        }
        return null;
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            return lines.stream().filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst().orElse(null);
        } catch (IOException | RuntimeException e) {
            return null; // not Linux: the JSON says null
        }
    }

    private static String git(Path dir, String... args) {
        try {
            List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null; // no git installed: the commit is unknown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
