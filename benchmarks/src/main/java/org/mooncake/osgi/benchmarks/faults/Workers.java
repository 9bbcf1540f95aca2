package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.benchmarks.faults.OpLog.Op;

/**
 * The client processes of a fault run, one per slot; a killed one is replaced by a new
 * generation ({@code c1g2}: slot 1, second process) with a log of its own. Slot 0 runs under
 * faketime when clock jumps are asked for: its clock follows a file the harness rewrites.
 */
final class Workers {
    private final Cluster cluster;
    private final String master;
    private final long seed;
    private final boolean fakeClock;
    private final Path shmDir;
    private final Process[] processes;
    private final int[] generation;
    private final List<Path> logs = new ArrayList<>();

    /** @param shmDir where the clients' shm transport keeps its files; null: tcp only */
    Workers(Cluster cluster, String master, int slots, long seed, boolean fakeClock, Path shmDir) {
        this.cluster = cluster;
        this.shmDir = shmDir;
        this.master = master;
        this.seed = seed;
        this.fakeClock = fakeClock;
        this.processes = new Process[slots];
        this.generation = new int[slots];
    }

    String id(int slot) {
        return "c" + slot + "g" + generation[slot];
    }

    private Path log(int slot) {
        return cluster.dir().resolve("ops-" + id(slot) + ".log");
    }

    private Path stopFile() {
        return cluster.dir().resolve("stop-clients");
    }

    private Path clockFile() {
        return cluster.dir().resolve("clock-c0");
    }

    void startAll() throws IOException {
        Files.deleteIfExists(stopFile());
        if (fakeClock) {
            jumpClock(0);
        }
        for (int i = 0; i < processes.length; i++) {
            start(i);
        }
    }

    private void start(int slot) throws IOException {
        generation[slot]++;
        logs.add(log(slot));
        Map<String, String> env = new LinkedHashMap<>();
        if (slot == 0 && fakeClock) {
            env.put("LD_PRELOAD", FaultSuite.FAKETIME_LIB.toString());
            env.put("FAKETIME_TIMESTAMP_FILE", clockFile().toString());
            env.put("FAKETIME_NO_CACHE", "1");
            env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        }
        List<String> args = new ArrayList<>(List.of("--master", master, "--id", id(slot), "--log", log(slot).toString(),
                "--seed", Long.toString(seed * 100 + slot * 10 + generation[slot]), "--stop", stopFile().toString(),
                "--io-timeout-ms", "2000"));
        if (shmDir != null) {
            args.addAll(List.of("--shm-dir", shmDir.toString()));
        }
        processes[slot] = cluster.java(id(slot), LoadWorker.class.getName(), args, env);
    }

    /** Whether every client has finished an operation (it is connected and running). */
    boolean allLogged() {
        for (int i = 0; i < processes.length; i++) {
            try {
                if (!Files.exists(log(i)) || !Files.readString(log(i), StandardCharsets.UTF_8).contains("\nE ")
                        && !Files.readString(log(i), StandardCharsets.UTF_8).startsWith("E ")) {
                    if (!processes[i].isAlive()) {
                        throw new IllegalStateException("client " + id(i) + " ended: " + cluster.tail(id(i)));
                    }
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * A random slot whose client has begun an operation (a client just started to replace a
     * killed one has not yet), waiting for one where none has.
     */
    int pickRunning(java.util.Random rnd) {
        List<Integer> running = new ArrayList<>();
        FaultSuite.await("a client running", 120, () -> {
            running.clear();
            for (int i = 0; i < processes.length; i++) {
                if (running(i)) {
                    running.add(i);
                }
            }
            return !running.isEmpty();
        });
        return running.get(rnd.nextInt(running.size()));
    }

    /** Waits until the client of {@code slot} has begun an operation. */
    void awaitRunning(int slot) {
        FaultSuite.await("client " + id(slot) + " running", 120, () -> running(slot));
    }

    private boolean running(int slot) {
        try {
            return processes[slot].isAlive() && Files.exists(log(slot)) && Files.size(log(slot)) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Kills the client of {@code slot} with SIGKILL as soon as one of its operations {@code op} is
     * in flight (or after 5 s of waiting, whatever it is doing); the moment of the kill.
     */
    long killWhile(int slot, Op op) throws IOException, InterruptedException {
        LogTail tail = new LogTail(log(slot));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!tail.inFlight(op) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        long t = System.nanoTime();
        Cluster.kill9(processes[slot]);
        return t;
    }

    /** When the client of {@code slot} next ended an operation well that it began after {@code since}; -1 if not within {@code waitNanos}. */
    long firstSuccessSince(int slot, long since, long waitNanos) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        while (System.nanoTime() < deadline) {
            long first = OpLog.read(List.of(log(slot))).stream()
                    .filter(e -> e.startNanos() >= since && e.outcome() == OpLog.Outcome.OK)
                    .mapToLong(OpLog.Entry::endNanos).min().orElse(-1);
            if (first >= 0) {
                return first;
            }
            Thread.sleep(50);
        }
        return -1;
    }

    void restart(int slot) throws IOException {
        start(slot);
    }

    /** Sets slot 0's clock {@code seconds} away from the real one (0: back). */
    void jumpClock(long seconds) throws IOException {
        Files.writeString(clockFile(), (seconds >= 0 ? "+" : "") + seconds + "s\n");
    }

    /** Asks every client to finish its operations and end; kills one that has not within 30 s. */
    void stopAll() throws IOException, InterruptedException {
        Files.writeString(stopFile(), "stop\n");
        for (Process p : processes) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                Cluster.kill9(p);
            }
        }
    }

    Map<String, Process> processes() {
        Map<String, Process> m = new LinkedHashMap<>();
        for (int i = 0; i < processes.length; i++) {
            m.put("client-" + i, processes[i]);
        }
        return m;
    }

    List<Path> logs() {
        return List.copyOf(logs);
    }
}
