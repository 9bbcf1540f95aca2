package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts child processes and makes sure they end: {@link #close} sends every one SIGTERM at once,
 * waits up to the grace period for each and kills what is left, then runs the clean-ups
 * registered with {@link #afterStop}; with the shutdown hook it does the same on Ctrl-C.
 * {@link #release} hands the processes over to the user instead (--keep).
 */
public final class Supervisor implements AutoCloseable {
    private final Duration grace;
    private final List<ManagedProcess> processes = new ArrayList<>();
    private final List<Runnable> afterStop = new ArrayList<>();
    private Thread hook;
    private boolean released;
    private volatile boolean interrupted;

    public Supervisor(Duration grace) {
        this.grace = grace;
    }

    /**
     * Starts {@code command} with {@code env} added to this process's environment, its output
     * written to {@code logs/NAME.log} (replacing an earlier run's); {@code healthUrl} answers 200
     * once it is up.
     */
    public synchronized ManagedProcess start(String name, List<String> command, Map<String, String> env, Path logs,
            String healthUrl) throws IOException {
        if (released) {
            throw new IllegalStateException("the processes were handed over; start no more");
        }
        Path log = ManagedProcess.logFile(logs, name);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        ManagedProcess p = new ManagedProcess(name, pb.start(), log, healthUrl);
        processes.add(p);
        return p;
    }

    public synchronized List<ManagedProcess> processes() {
        return List.copyOf(processes);
    }

    /** Stops every process when this JVM is asked to end (Ctrl-C, SIGTERM) before {@link #close}. */
    public synchronized void installShutdownHook() {
        if (hook == null) {
            hook = new Thread(() -> {
                interrupted = true;
                System.err.println("\nmooncake demo epd: interrupted; stopping its processes");
                stopQuietly();
            }, "epd-demo-stop");
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /** Whether the shutdown hook ran: the run was interrupted, its processes are being stopped. */
    public boolean interrupted() {
        return interrupted;
    }

    /** Runs {@code cleanUp} once every process has stopped (not after {@link #release}). */
    public synchronized void afterStop(Runnable cleanUp) {
        afterStop.add(cleanUp);
    }

    /** Leaves the processes running after this JVM ends: {@link #close} then stops nothing. */
    public synchronized void release() {
        released = true;
        removeHook();
    }

    /**
     * SIGTERM to all, then up to the grace period each, then SIGKILL; idempotent. Returns the names
     * of the processes that had to be killed.
     */
    public synchronized List<String> stopAll() throws InterruptedException {
        List<String> killed = new ArrayList<>();
        if (released) {
            return killed;
        }
        for (ManagedProcess p : processes) {
            p.terminate();
        }
        for (ManagedProcess p : processes) {
            if (!p.awaitExitOrKill(grace)) {
                killed.add(p.name());
            }
        }
        processes.clear();
        for (Runnable r : afterStop) {
            try {
                r.run();
            } catch (RuntimeException e) {
                System.err.println("mooncake demo epd: clean-up after stopping failed: " + e.getMessage());
            }
        }
        afterStop.clear();
        return killed;
    }

    private void stopQuietly() {
        try {
            stopAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void removeHook() {
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook is running or ran
            }
            hook = null;
        }
    }

    /** {@link #stopAll}; interrupted while waiting, it kills what is left at once rather than leave it running. */
    @Override
    public void close() {
        try {
            stopAll();
        } catch (InterruptedException e) {
            synchronized (this) {
                processes.forEach(p -> p.process().destroyForcibly());
                processes.clear();
                afterStop.clear(); // their processes may not be gone yet: leave their files
            }
            Thread.currentThread().interrupt();
        } finally {
            synchronized (this) {
                removeHook();
            }
        }
    }
}
