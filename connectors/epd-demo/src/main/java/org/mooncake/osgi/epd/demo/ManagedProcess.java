package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process the demo started: its name, its log file (stdout and stderr) and the URL that
 * says 200 when it is up. Made by {@link Supervisor#start}.
 */
public final class ManagedProcess {
    private final String name;
    private final Process process;
    private final Path log;
    private final String healthUrl;
    private final long startedNanos = System.nanoTime();
    private volatile double startSeconds = Double.NaN;

    ManagedProcess(String name, Process process, Path log, String healthUrl) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.healthUrl = healthUrl;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Process process() {
        return process;
    }

    /** Seconds from the start to the first healthy answer; NaN until then. */
    public double startSeconds() {
        return startSeconds;
    }

    /**
     * Polls the health URL until it answers 200.
     *
     * @throws StartupFailure at once if the process exits, or after {@code timeout}: naming the
     *         process, the last answer and the tail of its log
     */
    public void awaitHealthy(DemoHttp http, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (true) {
            if (!process.isAlive()) {
                throw new StartupFailure(name + " (pid " + pid() + ") exited with status " + process.exitValue()
                        + " before it was healthy" + tail());
            }
            try {
                HttpResponse<String> r = http.get(healthUrl, Duration.ofSeconds(2));
                if (r.statusCode() == 200) {
                    startSeconds = (System.nanoTime() - startedNanos) / 1e9;
                    return;
                }
                last = "HTTP " + r.statusCode() + " " + DemoHttp.abbreviate(r.body().strip());
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (System.nanoTime() > deadline) {
                throw new StartupFailure(name + " (pid " + pid() + ") not healthy after " + timeout.toSeconds() + " s at "
                        + healthUrl + " (last: " + last + ")" + tail());
            }
            // a process's start takes seconds: polling five times a second costs nothing and adds little delay
            process.waitFor(200, TimeUnit.MILLISECONDS);
        }
    }

    private String tail() {
        return "; last lines of " + log + ":\n" + String.join("\n", logTail(20));
    }

    /** The last {@code lines} lines of the log (reads at most its last 64 KiB). */
    public List<String> logTail(int lines) {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            long from = Math.max(0, f.length() - 65536);
            byte[] bytes = new byte[(int) (f.length() - from)];
            f.seek(from);
            f.readFully(bytes);
            List<String> all = new String(bytes, StandardCharsets.UTF_8).lines().toList();
            return all.subList(Math.max(0, all.size() - lines), all.size());
        } catch (IOException e) {
            return List.of("(log unreadable: " + e + ")");
        }
    }

    /** SIGTERM to the process (and anything it started). */
    void terminate() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
    }

    /** Waits up to {@code grace} for the exit; SIGKILL if it has not. Returns whether it stopped by itself. */
    boolean awaitExitOrKill(Duration grace) throws InterruptedException {
        if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        kill();
        return false;
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor();
    }

    /** What went wrong starting a process, said so that the reader can act on it. */
    public static final class StartupFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public StartupFailure(String message) {
            super(message);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ", log " + log + ")";
    }

    static Path logFile(Path logs, String name) throws IOException {
        Files.createDirectories(logs);
        return logs.resolve(name + ".log");
    }
}
