package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

class UcxPerftestTest {
    private static String sample(String name) throws IOException {
        try (InputStream in = UcxPerftestTest.class.getResourceAsStream(name)) {
            assertTrue(in != null, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Captured from UCX 1.13.1's ucx_perftest on the 2-vCPU VM, the pinned client command with
     * UCX_TLS=posix,self, 64 KiB, 20,000 iterations, {@code -f}: one line of figures under the
     * table head. The row is the overall bandwidth (UCX's "MB/s" are MiB/s).
     */
    @Test
    void theFinalBandwidthIsReadFromACapturedOutput() throws IOException {
        Result posix = UcxPerftest.parse("ucx_perftest-posix", 65_536, sample("ucx_perftest-posix-65536.txt"));
        assertEquals(new Result("ucx_perftest-posix", "put_bw", 65_536, 20_000, 23754.83, 0, 0), posix);
        // UCX_TLS=tcp: the average (of the last period) and the overall columns differ; the overall one counts
        Result tcp = UcxPerftest.parse("ucx_perftest-tcp", 65_536, sample("ucx_perftest-tcp-65536.txt"));
        assertEquals(617.01, tcp.mibPerSecond());
        assertEquals(20_000, tcp.ops());
    }

    /** Without {@code -f} the progress lines come first and the figures are on the line "Final:". */
    @Test
    void withoutTheFinalOnlyFlagTheFinalLineCounts() throws IOException {
        Result r = UcxPerftest.parse("ucx_perftest-tcp", 1 << 20, sample("ucx_perftest-tcp-1MiB-progress.txt"));
        assertEquals(526.06, r.mibPerSecond());
        assertEquals(3000, r.ops());
    }

    /** UCX's "MB/s" are MiB/s: 1 MiB per 26.967 µs printed as 37,082.29, the sample's other figures agree. */
    @Test
    void ucxMegabytesAreMebibytes() throws IOException {
        String[] f = sample("ucx_perftest-posix-65536.txt").lines().toList().getLast().strip().split("\\s+");
        double overheadUs = Double.parseDouble(f[3]);
        double printed = Double.parseDouble(f[5]);
        assertEquals(65_536 / (overheadUs * 1e-6) / (1 << 20), printed, printed * 0.001);
    }

    @Test
    void anOutputWithoutFiguresIsAFailureThatQuotesIt() {
        String refused = "[1796282674.995915] [vm:27730:0]        perftest.c:405  UCX  ERROR client failed. "
                + "connect() failed: Connection refused\n";
        String message = assertThrows(IllegalStateException.class,
                () -> UcxPerftest.parse("ucx_perftest-tcp", 1, refused)).getMessage();
        assertTrue(message.startsWith("ucx_perftest printed no bandwidth figures; it said: ["), message);
        assertTrue(message.contains("Connection refused"), message);
        // a line of eight numbers before the table's head is not taken for figures
        assertThrows(IllegalStateException.class, () -> UcxPerftest.parse("x", 1, "1 2 3 4 5 6 7 8\n"));
    }

    /** The pinned command lines are what runs: the program, then the template's words with the capitals filled in. */
    @Test
    void theCommandLinesAreThePinnedOnesFilledIn() {
        Path exe = Path.of("/usr/bin/ucx_perftest");
        assertEquals(List.of("/usr/bin/ucx_perftest", "-t", "ucp_put_bw", "-s", "65536", "-n", "1000", "-w", "500", "-p",
                "4242", "-f"), UcxPerftest.command(UcxPerftest.SERVER, exe, 65_536, 1000, 500, 4242));
        assertEquals(List.of("/usr/bin/ucx_perftest", "127.0.0.1", "-t", "ucp_put_bw", "-s", "65536", "-n", "1000", "-w",
                "500", "-p", "4242", "-f"), UcxPerftest.command(UcxPerftest.CLIENT, exe, 65_536, 1000, 500, 4242));
        TransferSystem posix = UcxPerftest.system("ucx_perftest-posix", "posix,self", "ucx_perftest");
        assertTrue(posix.commands().getFirst().startsWith("UCX_TLS=posix,self " + UcxPerftest.SERVER), posix.commands().toString());
        assertTrue(posix.commands().get(1).startsWith("UCX_TLS=posix,self " + UcxPerftest.CLIENT), posix.commands().toString());
    }

    private static Path script(Path dir, String body) throws IOException {
        Path p = dir.resolve("fake_perftest");
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private static List<ProcessHandle> sleepers() {
        return ProcessHandle.current().descendants()
                .filter(h -> h.info().commandLine().orElse("").contains("sleep 600")).toList();
    }

    /** A server and a client that never answer end the measurement with a failure, and neither is left running. */
    @Test
    void aPeerThatNeverAnswersIsStoppedAtTheLimit(@TempDir Path dir) throws IOException {
        Path hangs = script(dir, "exec sleep 600");
        Processes.TimedOut t = assertThrows(Processes.TimedOut.class, () -> UcxPerftest.measure("ucx_perftest-tcp", hangs,
                "tcp", 65_536, 10, 5, Duration.ofSeconds(2)));
        assertTrue(t.getMessage().contains("did not end within 2 s"), t.getMessage());
        assertEquals(List.of(), sleepers(), "the fake server and client are gone");
    }

    /**
     * A server that never listens: the real client is refused, retried within the limit, and the
     * row fails with what the client said.
     */
    @Test
    void aServerThatNeverListensFailsTheRowWithTheClientsWords(@TempDir Path dir) throws IOException {
        Optional<Path> real = Processes.which("ucx_perftest");
        assumeTrue(real.isPresent(), "ucx_perftest not installed");
        Path serverHangs = script(dir, "if [ \"$1\" = 127.0.0.1 ]; then exec " + real.get() + " \"$@\"; else exec sleep 600; fi");
        IOException e = assertThrows(IOException.class, () -> UcxPerftest.measure("ucx_perftest-tcp", serverHangs, "tcp",
                65_536, 10, 5, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        assertEquals(List.of(), sleepers(), "the fake server is gone");
    }

    /** Where the program is not installed the system says so before it starts, and a start says "not run". */
    @Test
    void aMissingProgramMakesTheRowNotRunWithTheReason() {
        TransferSystem s = UcxPerftest.system("ucx_perftest-posix", "posix,self", "/nonexistent/ucx_perftest");
        assertEquals(Optional.of("/nonexistent/ucx_perftest not installed (apt-get install ucx-utils)"), s.missing().get());
        assertThrows(TransferSystem.Unavailable.class, () -> s.starter().start(new TransferSystem.Rig(1, 1, 0)));
    }

    /** A real measurement through the pinned command lines, where ucx_perftest is installed. */
    @Test
    void aRealMeasurementGivesAPositiveBandwidth() throws Exception {
        Optional<Path> real = Processes.which("ucx_perftest");
        assumeTrue(real.isPresent(), "ucx_perftest not installed");
        Result r = UcxPerftest.measure("ucx_perftest-tcp", real.get(), UcxPerftest.TLS_TCP, 4096, 100, 50,
                Duration.ofSeconds(60));
        assertEquals("put_bw", r.op());
        assertEquals(100, r.ops());
        assertTrue(r.mibPerSecond() > 0, r.toString());
    }
}
