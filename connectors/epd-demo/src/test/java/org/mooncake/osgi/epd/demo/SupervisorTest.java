package org.mooncake.osgi.epd.demo;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {
    private static final DemoHttp HTTP = new DemoHttp(Duration.ofSeconds(5));

    /** {@code java -cp <this class path> MAIN ARGS}: a child JVM running a test main. */
    static List<String> java(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String health(int port) {
        return "http://127.0.0.1:" + port + "/health";
    }

    @Test
    void startsWaitsUntilHealthyAndStopsWithSigterm(@TempDir Path logs) throws Exception {
        int port = FreePorts.pick(1).getFirst();
        try (Supervisor s = new Supervisor(Duration.ofSeconds(20))) {
            ManagedProcess p = s.start("fake", java(FakeService.class, "serve", Integer.toString(port), "500"), Map.of(),
                    logs, health(port));
            p.awaitHealthy(HTTP, Duration.ofSeconds(60));
            List<Boolean> aliveAtCleanUp = new ArrayList<>();
            s.afterStop(() -> aliveAtCleanUp.add(p.isAlive()));
            assertTrue(p.startSeconds() >= 0.5, "healthy only once it serves: " + p.startSeconds());
            assertTrue(Files.readString(logs.resolve("fake.log")).contains("fake: serving on " + port));
            assertEquals(List.of(), s.stopAll(), "ended by SIGTERM within the grace period, nothing killed");
            assertFalse(p.isAlive());
            assertEquals(List.of(false), aliveAtCleanUp, "the clean-up ran once, after the process ended");
            assertEquals(143, p.process().exitValue(), "128 + SIGTERM");
            assertEquals(List.of(), s.stopAll(), "stopping twice is harmless");
        }
    }

    @Test
    void aProcessThatNeverAnswersTimesOutNamingItAndShowingItsLogTail(@TempDir Path logs) throws Exception {
        int port = FreePorts.pick(1).getFirst();
        try (Supervisor s = new Supervisor(Duration.ofSeconds(5))) {
            ManagedProcess p = s.start("fake-never", java(FakeService.class, "never"), Map.of(), logs, health(port));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(logs.resolve("fake-never.log")).contains("booting forever"));
            ManagedProcess.StartupFailure e = assertThrows(ManagedProcess.StartupFailure.class,
                    () -> p.awaitHealthy(HTTP, Duration.ofSeconds(1)));
            assertTrue(e.getMessage().startsWith("fake-never (pid " + p.pid() + ") not healthy after 1 s at " + health(port)
                    + " (last: ConnectException"), e.getMessage());
            assertTrue(e.getMessage().contains("last lines of " + logs.resolve("fake-never.log") + ":\n"), e.getMessage());
            assertTrue(e.getMessage().endsWith("fake: booting never\nfake: booting forever"), e.getMessage());
        }
    }

    @Test
    void aProcessThatExitsFailsTheWaitAtOnceWithItsStatusAndLog(@TempDir Path logs) throws Exception {
        try (Supervisor s = new Supervisor(Duration.ofSeconds(5))) {
            ManagedProcess p = s.start("fake-exit", java(FakeService.class, "exit", "3"), Map.of(), logs, health(1));
            long start = System.nanoTime();
            ManagedProcess.StartupFailure e = assertThrows(ManagedProcess.StartupFailure.class,
                    () -> p.awaitHealthy(HTTP, Duration.ofSeconds(120)));
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(60).toNanos(), "not after the whole timeout");
            assertTrue(e.getMessage().startsWith("fake-exit (pid " + p.pid() + ") exited with status 3 before it was healthy"),
                    e.getMessage());
            assertTrue(e.getMessage().endsWith("fake: boom"), e.getMessage());
        }
    }

    @Test
    void aProcessThatIgnoresSigtermIsKilledAfterTheGracePeriod(@TempDir Path logs) throws Exception {
        int port = FreePorts.pick(1).getFirst();
        try (Supervisor s = new Supervisor(Duration.ofSeconds(1))) {
            ManagedProcess p = s.start("stubborn", java(FakeService.class, "stubborn", Integer.toString(port)), Map.of(),
                    logs, health(port));
            p.awaitHealthy(HTTP, Duration.ofSeconds(60));
            assertEquals(List.of("stubborn"), s.stopAll());
            assertFalse(p.isAlive());
            assertTrue(Files.readString(logs.resolve("stubborn.log")).contains("fake: ignoring SIGTERM"),
                    "it was asked first");
        }
    }

    @Test
    void releasedProcessesOutliveTheSupervisor(@TempDir Path logs) throws Exception {
        int port = FreePorts.pick(1).getFirst();
        ManagedProcess p;
        try (Supervisor s = new Supervisor(Duration.ofSeconds(5))) {
            p = s.start("kept", java(FakeService.class, "serve", Integer.toString(port), "0"), Map.of(), logs, health(port));
            p.awaitHealthy(HTTP, Duration.ofSeconds(60));
            s.afterStop(() -> {
                throw new AssertionError("nothing is stopped after release, so nothing is cleaned up");
            });
            s.release();
            assertThrows(IllegalStateException.class, () -> s.start("late", List.of("true"), Map.of(), logs, health(1)));
        }
        try {
            assertTrue(p.isAlive(), "--keep leaves it running");
            assertEquals(200, HTTP.get(health(port), Duration.ofSeconds(5)).statusCode());
        } finally {
            p.kill();
        }
    }

    @Test
    void endingTheParentEndsItsChildren(@TempDir Path logs) throws Exception {
        Process parent = new ProcessBuilder(java(SupervisedParent.class, logs.toString())).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream()))) {
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("child "), String.valueOf(line));
            long child = Long.parseLong(line.substring("child ".length()));
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
            // SIGTERM, as Ctrl-C's SIGINT: the JVM runs its shutdown hooks (through the handle: Process.destroy
            // would close the pipe this test reads the rest of the output from)
            parent.toHandle().destroy();
            await("the child gone with its parent").atMost(Duration.ofSeconds(60))
                    .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
            String rest = String.join("\n", out.lines().toList());
            assertTrue(rest.contains("mooncake demo epd: interrupted; stopping its processes"), rest);
            assertTrue(rest.contains("cleaned up after " + child + ", alive false"), "clean-up after the stop: " + rest);
        } finally {
            parent.destroyForcibly();
        }
    }
}
