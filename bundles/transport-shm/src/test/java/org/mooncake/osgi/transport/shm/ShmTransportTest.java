package org.mooncake.osgi.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** An owner and a peer transport, as two processes on one host would have them. */
class ShmTransportTest {
    @TempDir
    Path dir;

    private final Arena arena = Arena.ofShared();
    private ShmTransport owner;
    private ShmTransport peer;

    private ShmTransport.Config config() {
        return ShmTransport.in(dir.toString());
    }

    @AfterEach
    void close() {
        peer.close();
        owner.close();
        arena.close();
    }

    private TransferStatus one(TransferOp op, MemorySegment local, SegmentEndpoint ep, long offset) {
        return peer.submit(List.of(new TransferRequest(op, local, ep, offset))).toCompletableFuture().join().getFirst();
    }

    /** A file system too small fails the segment at once, with the remedy named, and leaves no file. */
    @Test
    void aSegmentLargerThanTheFreeSpaceFailsAtOnceAndLeavesNoFile() throws Exception {
        owner = new ShmTransport(config());
        peer = new ShmTransport(config());
        long tooBig = Files.getFileStore(dir).getUsableSpace() + (1L << 30);
        var e = assertThrows(java.io.UncheckedIOException.class, () -> owner.allocateSegment("s", tooBig, arena));
        assertTrue(e.getMessage().contains("no room in " + dir) && e.getMessage().contains("--shm-size"), e.getMessage());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    /**
     * Every page of a new segment's file is backed before anyone copies into it: a sparse file
     * could fault (SIGBUS) on a write once its tmpfs fills up, fatal inside the native copy kernel.
     * The file's allocated blocks, as {@code stat} counts them, cover the whole segment.
     */
    @Test
    void everyPageOfANewSegmentIsBackedBeforeItIsUsed() throws Exception {
        owner = new ShmTransport(config());
        peer = new ShmTransport(config());
        long size = 8 << 20;
        MemorySegment segment = owner.allocateSegment("s", size, arena);
        Path file;
        try (var files = Files.list(dir)) {
            file = files.filter(f -> f.getFileName().toString().endsWith(".seg")).findFirst().orElseThrow();
        }
        Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        String[] blocks = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
        assertEquals(0, stat.waitFor(), String.join(" ", blocks));
        long allocated = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
        assertTrue(allocated >= size + ControlPage.SIZE, allocated + " bytes allocated for a segment of " + size);
        assertEquals(size, segment.byteSize());
    }

    @Test
    void thePeerWritesAndReadsTheOwnersMemoryThroughTheSharedFile() {
        owner = new ShmTransport(config());
        peer = new ShmTransport(config());
        MemorySegment segment = owner.allocateSegment("s", 1 << 20, arena);
        SegmentEndpoint ep = owner.expose("s", segment);
        assertTrue(peer.canReach(ep));
        byte[] data = new byte[300_000];
        new Random(3).nextBytes(data);
        assertTrue(one(TransferOp.WRITE, MemorySegment.ofArray(data), ep, 1000).completed());
        assertEquals(-1, segment.asSlice(1000, data.length).mismatch(MemorySegment.ofArray(data)), "the owner sees it");
        byte[] back = new byte[data.length];
        assertTrue(one(TransferOp.READ, MemorySegment.ofArray(back), ep, 1000).completed());
        assertEquals(-1, MemorySegment.ofArray(back).mismatch(MemorySegment.ofArray(data)));
        assertFalse(one(TransferOp.READ, arena.allocate(10), ep, (1 << 20) - 5).completed(), "out of range");
    }

    /**
     * A segment file and its lock file are the owner's alone (0600) from the moment they exist, so
     * another user on the host can neither read nor overwrite the objects; a peer of the same user
     * still maps the segment.
     */
    @Test
    void segmentFilesAreReadableAndWritableByTheirOwnerOnly() throws Exception {
        SegmentEndpoint ep = ownerAndPeerWithSegment(1 << 16);
        var ownerOnly = java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");
        try (var files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertEquals(2, all.size(), "the segment and its lock: " + all);
            for (Path f : all) {
                assertEquals(ownerOnly, Files.getPosixFilePermissions(f), f.toString());
            }
        }
        byte[] data = {1, 2, 3};
        assertTrue(one(TransferOp.WRITE, MemorySegment.ofArray(data), ep, 0).completed(), "a peer of the same user");
        byte[] back = new byte[3];
        assertTrue(one(TransferOp.READ, MemorySegment.ofArray(back), ep, 0).completed());
        assertEquals(-1, MemorySegment.ofArray(back).mismatch(MemorySegment.ofArray(data)));
    }

    /** An owner with segment "s" of {@code size} bytes, and a peer; returns the segment's endpoint. */
    private SegmentEndpoint ownerAndPeerWithSegment(long size) {
        owner = new ShmTransport(config());
        peer = new ShmTransport(config());
        return owner.expose("s", owner.allocateSegment("s", size, arena));
    }

    @Test
    void aWithdrawnSegmentIsRefusedAndItsFileRemoved() throws Exception {
        SegmentEndpoint ep = ownerAndPeerWithSegment(4096);
        assertTrue(one(TransferOp.READ, arena.allocate(10), ep, 0).completed());
        String file = ep.address().substring(ep.address().indexOf('|') + 1);
        long mappedBefore = mappingsOf(file);
        owner.withdraw("s");
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
        TransferStatus s = one(TransferOp.READ, arena.allocate(10), ep, 0);
        assertFalse(s.completed());
        assertTrue(s.error().contains("withdrawn"), s.error());
        if (Files.exists(MAPS)) {
            // the owner's own mapping stays until its memory is released; the peer's is gone
            assertTrue(mappingsOf(file) < mappedBefore, "the peer unmapped it: " + mappedBefore + " mappings before");
        }
        assertFalse(one(TransferOp.READ, arena.allocate(10), ep, 0).completed(), "and still refuses it");
    }

    private static final Path MAPS = Path.of("/proc/self/maps");

    private static long mappingsOf(String file) throws java.io.IOException {
        return Files.exists(MAPS) ? Files.readAllLines(MAPS).stream().filter(l -> l.contains(file)).count() : 0;
    }

    @RepeatedTest(10)
    void withdrawingUnderConcurrentReadsFailsThemCleanlyAndNeverReturnsOtherBytes() throws Exception {
        SegmentEndpoint ep = ownerAndPeerWithSegment(8 << 20);
        java.util.concurrent.atomic.AtomicReference<Throwable> wrong = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(2);
        List<Thread> readers = new java.util.ArrayList<>();
        for (int t = 0; t < 2; t++) {
            readers.add(Thread.ofPlatform().start(() -> {
                try (Arena mine = Arena.ofConfined()) {
                    MemorySegment target = mine.allocate(6 << 20);
                    for (int i = 0;; i++) {
                        // large enough that the checksum runs on another thread, beside the copy
                        TransferStatus s = peer.submit(List.of(new TransferRequest(TransferOp.READ, target, ep, 0, true)))
                                .toCompletableFuture().join().getFirst();
                        if (i == 0) {
                            reading.countDown();
                        }
                        if (!s.completed()) {
                            return; // withdrawn: the error is the answer
                        }
                    }
                } catch (Throwable e) {
                    wrong.set(e);
                }
            }));
        }
        assertTrue(reading.await(30, java.util.concurrent.TimeUnit.SECONDS));
        owner.withdraw("s");
        for (Thread t : readers) {
            t.join();
        }
        assertEquals(null, wrong.get());
    }

    @Test
    void aFileThatIsNotASegmentOfThisFormatIsRefusedNotMisread() throws Exception {
        SegmentEndpoint ep = ownerAndPeerWithSegment(8192);
        String host = ep.address().substring(0, ep.address().indexOf('|') + 1);
        Path foreign = Files.write(dir.resolve("foreign.seg"), new byte[3 * 4096]);
        TransferStatus s = one(TransferOp.READ, arena.allocate(10), new SegmentEndpoint("shm", host + foreign, "f"), 0);
        assertFalse(s.completed());
        assertTrue(s.error().contains("not a shm segment file"), s.error());
        Path tiny = Files.write(dir.resolve("tiny.seg"), new byte[10]);
        assertFalse(one(TransferOp.READ, arena.allocate(1), new SegmentEndpoint("shm", host + tiny, "t"), 0).completed());
        assertTrue(one(TransferOp.READ, arena.allocate(10), ep, 0).completed(), "a real one still works");
    }

    @Test
    void otherHostsAndForeignMemoryAreRefused() {
        owner = new ShmTransport(config());
        peer = new ShmTransport(config());
        SegmentEndpoint elsewhere = new SegmentEndpoint("shm", "another-host|/dev/shm/x", "s");
        assertFalse(peer.canReach(elsewhere));
        assertFalse(one(TransferOp.READ, arena.allocate(10), elsewhere, 0).completed());
        assertThrows(IllegalArgumentException.class, () -> owner.expose("s", arena.allocate(4096)));
    }
}
