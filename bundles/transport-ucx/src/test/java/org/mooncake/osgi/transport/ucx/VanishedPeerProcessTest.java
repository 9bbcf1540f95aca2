package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * The owner of a segment in another process ({@link OwnerProcess}, a child JVM), as a storage node
 * is: this JVM reads and writes its segment, then the owner vanishes - its process killed, or its
 * transport closed with the process alive - and every later request must fail with a status within
 * the request timeout: no exception, no hang, no crash of this JVM (the test finishing is the
 * proof), and this transport then closes cleanly. Also with requests in flight when it vanishes.
 * Except one case, pinned as a known defect: over shared memory a killed owner goes unnoticed
 * ({@link #ownerProcessKilledGoesUnnoticedOverSharedMemory}). The owner's POSIX shared memory files,
 * which a killed process leaves in /dev/shm, are removed after each test.
 */
class VanishedPeerProcessTest {
    static final long TIMEOUT_MS = 2_000;
    static final long SIZE = 1 << 20;
    /** How long the child may take to start a JVM and UCX and print its endpoint. */
    static final long START_S = 30;
    private static final String EOF = "\u0000eof";

    private final Arena arena = Arena.ofShared();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private Process owner;
    private Writer commands;
    private Path ownerLog;
    private UcxTransport peer;
    /** The POSIX shared memory files the owner's process mapped: UCX unlinks them only when it frees them. */
    private List<Path> ownerShm = List.of();

    @AfterEach
    void cleanUp() throws Exception {
        if (owner != null) {
            owner.destroyForcibly();
            owner.waitFor(10, TimeUnit.SECONDS);
        }
        if (peer != null) {
            peer.close();
        }
        arena.close();
        for (Path p : ownerShm) { // a killed (or exiting) owner leaves them behind
            Files.deleteIfExists(p);
        }
        if (ownerLog != null) {
            Files.deleteIfExists(ownerLog);
        }
    }

    /** Starts the owner's JVM and this JVM's transport; returns the owner's segment, checked to hold its pattern. */
    private SegmentEndpoint start(String tls) throws Exception {
        UcxRequired.ucx();
        ownerLog = Files.createTempFile("ucx-owner-", ".log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        owner = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", classPath(), OwnerProcess.class.getName(), tls,
                Long.toString(TIMEOUT_MS), Long.toString(SIZE)).redirectError(ownerLog.toFile()).start();
        commands = new OutputStreamWriter(owner.getOutputStream(), StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("owner-stdout").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(owner.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null;) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process went: EOF below
            }
            lines.add(EOF);
        });
        String[] f = next(START_S).split(" ");
        assertEquals(4, f.length, "the owner's endpoint line");
        assertEquals("endpoint", f[0]);
        SegmentEndpoint ep = new SegmentEndpoint(f[1], f[2], f[3]);
        try (var maps = Files.lines(Path.of("/proc/" + owner.pid() + "/maps"))) {
            ownerShm = maps.filter(l -> l.contains(" /dev/shm/ucx_shm_posix_"))
                    .map(l -> Path.of(l.substring(l.indexOf(" /dev/shm/") + 1).replace(" (deleted)", "").trim()))
                    .distinct().toList();
        }
        peer = new UcxTransport(UcxTransport.with(tls, TIMEOUT_MS, true));

        MemorySegment all = arena.allocate(SIZE, 64);
        assertTrue(timed(new TransferRequest(TransferOp.READ, all, ep, 0)).completed(), "the first READ");
        for (long i = 0; i < SIZE; i++) {
            if (all.get(ValueLayout.JAVA_BYTE, i) != OwnerProcess.pattern(i)) {
                fail("byte " + i + " of the owner's segment");
            }
        }
        MemorySegment data = arena.allocate(4096, 64);
        byte[] random = new byte[4096];
        new Random(17).nextBytes(random);
        MemorySegment.copy(MemorySegment.ofArray(random), 0, data, 0, 4096);
        TransferStatus w = timed(new TransferRequest(TransferOp.WRITE, data, ep, 8192));
        assertTrue(w.completed(), w.error());
        MemorySegment back = arena.allocate(4096, 64);
        TransferStatus r = timed(new TransferRequest(TransferOp.READ, back, ep, 8192));
        assertTrue(r.completed(), r.error());
        assertEquals(-1, back.mismatch(data), "the WRITE read back");
        assertEquals("byte " + random[100], command("get " + (8192 + 100)), "the WRITE as the owner's process sees it");

        String expected = tls.startsWith("posix") ? "posix/" : "tcp/";
        var lanes = peer.negotiated().values().stream().flatMap(List::stream).toList();
        assertFalse(lanes.isEmpty(), "an endpoint is open");
        assertTrue(lanes.stream().allMatch(l -> l.startsWith(expected)), tls + " negotiated " + lanes);
        return ep;
    }

    /**
     * This JVM's class path, and the URLs of the loader of this class where that is not the
     * application loader (the console launcher run with {@code -jar} loads the tests that way).
     */
    private static String classPath() throws Exception {
        List<String> path = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        for (ClassLoader l = VanishedPeerProcessTest.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                for (URL url : u.getURLs()) {
                    path.add(Path.of(url.toURI()).toString());
                }
            }
        }
        return String.join(File.pathSeparator, path);
    }

    private String command(String c) throws Exception {
        commands.write(c + "\n");
        commands.flush();
        return next(10);
    }

    /** The owner's next line on stdout, waiting at most {@code seconds}. */
    private String next(long seconds) throws Exception {
        String line = lines.poll(seconds, TimeUnit.SECONDS);
        if (line == null || line.equals(EOF)) {
            fail((line == null ? "no line from the owner in " + seconds + " s" : "the owner's stdout ended")
                    + (owner.isAlive() ? "" : ", exit " + owner.exitValue()) + "; its stderr:\n" + log());
        }
        return line;
    }

    private String log() {
        try {
            String s = Files.readString(ownerLog);
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            return e.toString();
        }
    }

    private TransferStatus timed(TransferRequest r) throws Exception {
        return timed(List.of(r)).getFirst();
    }

    /** A batch submitted (never throwing) and done within the request timeout + 1 s, or the test fails. */
    private List<TransferStatus> timed(List<TransferRequest> batch) throws InterruptedException, ExecutionException {
        long t0 = System.nanoTime();
        List<TransferStatus> s;
        try {
            s = peer.submit(batch).toCompletableFuture().get(TIMEOUT_MS + 1_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("a batch of " + batch.size() + " still not done after " + (TIMEOUT_MS + 1_000)
                    + " ms", e);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < TIMEOUT_MS + 1_000, "a batch of " + batch.size() + " took " + ms + " ms");
        assertEquals(batch.size(), s.size());
        return s;
    }

    /** Several READs and WRITEs, in one batch and one after another: each fails with a reason. */
    private void everyRequestFails(SegmentEndpoint ep, String when) throws Exception {
        List<TransferRequest> batch = List.of(
                new TransferRequest(TransferOp.READ, arena.allocate(4096), ep, 0),
                new TransferRequest(TransferOp.WRITE, arena.allocate(4096), ep, 4096),
                new TransferRequest(TransferOp.READ, arena.allocate(256 << 10), ep, 64 << 10, true),
                new TransferRequest(TransferOp.WRITE, arena.allocate(256 << 10), ep, 512 << 10, true));
        long t0 = System.nanoTime();
        List<TransferStatus> all = new ArrayList<>(timed(batch));
        for (int round = 0; round < 2; round++) {
            for (TransferOp op : TransferOp.values()) {
                all.add(timed(new TransferRequest(op, arena.allocate(8192), ep, round * 8192L)));
            }
        }
        for (TransferStatus s : all) {
            assertFalse(s.completed(), "a request " + when);
            assertNotNull(s.error(), "a failure's reason");
            assertFalse(s.error().isBlank(), "a failure's reason");
        }
        System.out.println(when + ": " + all.size() + " failed in " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
                + all.stream().map(TransferStatus::error).distinct().toList());
    }

    /** The peer closes cleanly, and then refuses requests. */
    private void peerCloses(SegmentEndpoint ep) throws Exception {
        peer.close();
        TransferStatus s = timed(new TransferRequest(TransferOp.READ, arena.allocate(10), ep, 0));
        assertFalse(s.completed());
        assertTrue(s.error().contains("closed"), s.error());
        peer = null;
    }

    /** Over TCP the killed owner's connection fails: every request fails at once, or at its timeout. */
    @ParameterizedTest
    @ValueSource(strings = {"tcp"})
    void ownerProcessKilled(String tls) throws Exception {
        SegmentEndpoint ep = start(tls);
        owner.destroyForcibly();
        assertTrue(owner.waitFor(10, TimeUnit.SECONDS), "the owner's process ended");
        everyRequestFails(ep, "after the owner's process was killed (" + tls + ")");
        peerCloses(ep);
    }

    /**
     * Known defect (README): over shared memory a peer that already reached the segment does not
     * notice that the owner's process died. Its requests are plain copies through its own mapping
     * of the segment and of the control page ({@link Transfers#copyHere}), and a killed owner
     * zeroes no control word; with {@code UCX_POSIX_USE_PROC_LINK=n} the shared memory files are
     * unlinked only when UCX frees them, so they outlive the process, and the peer's READs and WRITEs
     * keep completing against memory nobody serves. Pinned here (no exception, no hang, no crash; a
     * new peer fails, as UCX cannot connect to the dead worker) until that is fixed: then this
     * test should assert {@link #everyRequestFails} like the others.
     */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self"})
    void ownerProcessKilledGoesUnnoticedOverSharedMemory(String tls) throws Exception {
        SegmentEndpoint ep = start(tls);
        owner.destroyForcibly();
        assertTrue(owner.waitFor(10, TimeUnit.SECONDS), "the owner's process ended");
        assertFalse(ownerShm.isEmpty(), "the owner mapped POSIX shared memory");
        assertTrue(ownerShm.stream().allMatch(Files::exists), "the dead owner's shared memory files stay: " + ownerShm);

        MemorySegment back = arena.allocate(4096, 64);
        TransferStatus r = timed(new TransferRequest(TransferOp.READ, back, ep, 0));
        assertTrue(r.completed(), "the defect: a READ from the dead owner completes (" + r.error() + ")");
        for (long i = 0; i < 4096; i++) {
            assertEquals(OwnerProcess.pattern(i), back.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
        TransferStatus w = timed(new TransferRequest(TransferOp.WRITE, back, ep, 4096));
        assertTrue(w.completed(), "the defect: a WRITE to the dead owner completes (" + w.error() + ")");

        try (UcxTransport fresh = new UcxTransport(UcxTransport.with(tls, TIMEOUT_MS, true))) {
            UcxTransport surviving = peer;
            peer = fresh;
            try {
                everyRequestFails(ep, "from a new peer after the owner's process was killed (" + tls + ")");
            } finally {
                peer = surviving;
            }
        }
        peerCloses(ep);
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void ownerClosesItsTransportInALiveProcess(String tls) throws Exception {
        SegmentEndpoint ep = start(tls);
        assertEquals("closed", command("close"));
        everyRequestFails(ep, "after the owner closed its transport (" + tls + ")");
        assertTrue(owner.isAlive(), "the owner's process lives on; its stderr:\n" + log());
        peerCloses(ep);
    }

    /**
     * The owner vanishes while this JVM's requests to it are in flight: each still ends with a status
     * in time, those after it fail, and this JVM survives (over TCP, UCX 1.13 aborts a process whose
     * send meets an endpoint that failed before UCX processed the failure: README, Known defect).
     */
    @ParameterizedTest
    @CsvSource({"tcp, kill", "tcp, close", "'posix,self', close"})
    void ownerVanishesWhileRequestsAreInFlight(String tls, String how) throws Exception {
        SegmentEndpoint ep = start(tls);
        CountDownLatch flowing = new CountDownLatch(3);
        AtomicBoolean stop = new AtomicBoolean();
        MemorySegment[] bufs = {arena.allocate(SIZE / 4, 64), arena.allocate(SIZE / 4, 64),
            arena.allocate(SIZE / 4, 64), arena.allocate(SIZE / 4, 64)};
        CompletableFuture<int[]> traffic = CompletableFuture.supplyAsync(() -> {
            int[] counts = new int[3]; // batches, requests completed, requests failed
            try {
                while (!stop.get()) {
                    List<TransferStatus> s = timed(List.of(
                            new TransferRequest(TransferOp.READ, bufs[0], ep, 0),
                            new TransferRequest(TransferOp.WRITE, bufs[1], ep, SIZE / 4),
                            new TransferRequest(TransferOp.READ, bufs[2], ep, SIZE / 2),
                            new TransferRequest(TransferOp.WRITE, bufs[3], ep, 3 * SIZE / 4)));
                    counts[0]++;
                    for (TransferStatus t : s) {
                        counts[t.completed() ? 1 : 2]++;
                        if (!t.completed()) {
                            assertNotNull(t.error());
                        }
                    }
                    flowing.countDown();
                    if (s.stream().noneMatch(TransferStatus::completed)) {
                        return counts; // the owner is gone
                    }
                }
                return counts;
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, Executors.newVirtualThreadPerTaskExecutor());
        assertTrue(flowing.await(10, TimeUnit.SECONDS), "requests flow");
        if (how.equals("kill")) {
            owner.destroyForcibly();
        } else {
            commands.write("close\n");
            commands.flush();
        }
        int[] counts;
        try {
            counts = traffic.get(10, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
        }
        System.out.println("in flight, owner " + how + " (" + tls + "): " + counts[0] + " batches, " + counts[1]
                + " completed, " + counts[2] + " failed");
        if (how.equals("close")) {
            assertEquals("closed", next(10));
        }
        everyRequestFails(ep, "after the owner vanished (" + how + ") with requests in flight (" + tls + ")");
        if (how.equals("close")) {
            assertTrue(owner.isAlive(), "the owner's process lives on; its stderr:\n" + log());
        }
        peerCloses(ep);
    }
}
