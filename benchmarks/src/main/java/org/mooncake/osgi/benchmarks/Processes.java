package org.mooncake.osgi.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The external programs the transfer benchmark runs beside the store (redis-benchmark, iperf3,
 * ucx_perftest), each with a time limit: a peer that never answers ends its row with a failure
 * instead of holding the run. Output goes to a file, not a pipe, so a chatty program never blocks
 * on a full pipe that nobody reads, and what it said before it was stopped is still there.
 */
final class Processes {
    private Processes() {
    }

    /** A finished program: its exit status and its output (stdout and stderr together). */
    record Finished(int exit, String output) {
    }

    /** A program that did not end within its time limit; it has been killed, with its children. */
    static final class TimedOut extends IOException {
        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(message);
        }
    }

    /** Where {@code program} is on the {@code PATH} (or the path itself, if it names an executable file). */
    static Optional<Path> which(String program) {
        if (program.contains("/")) {
            Path p = Path.of(program);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/local/bin:/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, program);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Starts {@code command} with {@code env} added to this process's environment, its output into {@code log}. */
    static Process start(List<String> command, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Runs {@code command} to its end, at most {@code limit}; throws {@link TimedOut} (after killing it) past that. */
    static Finished run(List<String> command, Map<String, String> env, Duration limit)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("bench-transfer-", ".log");
        try {
            Process p = start(command, env, log);
            if (!p.waitFor(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS)) {
                kill(p);
                throw new TimedOut(String.join(" ", command) + " did not end within " + seconds(limit) + saidTail(log));
            }
            return new Finished(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * Stops {@code p} and its children: SIGTERM first, so that a program can remove what it made
     * (UCX its shared-memory files), SIGKILL after 2 s; waits (briefly) until it is gone.
     */
    static void kill(Process p) throws InterruptedException {
        List<ProcessHandle> children = p.descendants().toList();
        children.forEach(ProcessHandle::destroy);
        p.destroy();
        if (!p.waitFor(2, TimeUnit.SECONDS)) {
            children.forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The end of what a program said, for a message: {@code "; it said: ..."}, or nothing. */
    static String saidTail(Path log) {
        try {
            return said(Files.readString(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return "";
        }
    }

    static String said(String output) {
        String s = output.strip();
        if (s.isEmpty()) {
            return "";
        }
        return "; it said: " + (s.length() > 600 ? "..." + s.substring(s.length() - 600) : s);
    }
}
