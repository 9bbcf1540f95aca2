package org.mooncake.osgi.store.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.internal.Xxh3;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

class MemoryCopyTest {
    private static final SegmentEndpoint REMOTE = new SegmentEndpoint("local", "here", "s");
    private static final long STEP = MemoryCopy.CHECKSUM_STEP;

    private static long checksum(byte[] bytes) {
        return Xxh3.hash(MemorySegment.ofArray(bytes));
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    static Stream<Arguments> opsAndSizesAroundTheStep() {
        return Stream.of(TransferOp.values()).flatMap(op -> LongStream.of(0, 1, STEP - 1, STEP, STEP + 1, 64 * STEP + 3)
                .mapToObj(size -> Arguments.of(op, size)));
    }

    /** A WRITE's checksum is of its source, a READ's of what it delivered: both are the data. */
    @ParameterizedTest
    @MethodSource("opsAndSizesAroundTheStep")
    void aTransferAskedForItsChecksumGetsItBesideTheCopy(TransferOp op, long size) {
        byte[] data = random((int) size);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment remote = arena.allocate(size + 100);
            MemorySegment local = op == TransferOp.WRITE ? MemorySegment.ofArray(data) : arena.allocate(size);
            if (op == TransferOp.READ) {
                MemorySegment.copy(MemorySegment.ofArray(data), 0, remote, 100, size);
            }
            TransferStatus s = MemoryCopy.run(new TransferRequest(op, local, REMOTE, 100, true), remote);
            assertTrue(s.completed());
            assertEquals(size, s.bytes());
            assertEquals(checksum(data), s.checksum().orElseThrow());
            MemorySegment landed = op == TransferOp.WRITE ? remote.asSlice(100) : local;
            assertEquals(-1, landed.mismatch(MemorySegment.ofArray(data)));
        }
    }

    /** The Java path, which runs where the native kernel does not: in steps, the last one of any length. */
    @Test
    void theJavaPathChecksumsInStepsWhateverTheLastStepHolds() {
        for (long size : new long[] {0, 1, 241, STEP - 1, STEP, STEP + 1, 3 * STEP + 63, 3 * STEP + 64, 3 * STEP + 300}) {
            byte[] data = random((int) size);
            byte[] landed = new byte[data.length + 9];
            long checksum = MemoryCopy.checksumThenCopyInSteps(MemorySegment.ofArray(data),
                    MemorySegment.ofArray(landed).asSlice(9, data.length));
            assertEquals(checksum(data), checksum, "size " + size);
            assertEquals(-1, MemorySegment.ofArray(landed).asSlice(9, data.length).mismatch(MemorySegment.ofArray(data)));
            assertEquals(0, landed[8]);
        }
    }

    /** Whichever path this machine takes (native kernel or Java). */
    @Test
    void bothDirectionsLandTheDataAndItsChecksumAtAnOffset() {
        byte[] data = random((int) (5 * STEP + 13));
        for (TransferOp op : TransferOp.values()) {
            byte[] remote = new byte[data.length + 9];
            byte[] local = new byte[data.length];
            if (op == TransferOp.WRITE) {
                System.arraycopy(data, 0, local, 0, data.length);
            } else {
                System.arraycopy(data, 0, remote, 9, data.length);
            }
            MemorySegment range = MemorySegment.ofArray(remote).asSlice(9, data.length);
            MemorySegment mine = MemorySegment.ofArray(local);
            long checksum = op == TransferOp.WRITE ? MemoryCopy.copyWithChecksum(mine, range)
                    : MemoryCopy.copyWithChecksum(range, mine);
            assertEquals(checksum(data), checksum, op.name());
            assertEquals(-1, MemorySegment.ofArray(op == TransferOp.WRITE ? remote : local)
                    .asSlice(op == TransferOp.WRITE ? 9 : 0, data.length).mismatch(MemorySegment.ofArray(data)), op.name());
        }
    }

    @Test
    void localMemoryInsideTheRemoteRangeIsRefusedAndLeftAsItWas() {
        byte[] segment = random(4096);
        byte[] before = segment.clone();
        MemorySegment remote = MemorySegment.ofArray(segment);
        for (TransferOp op : TransferOp.values()) {
            for (boolean checksum : new boolean[] {true, false}) {
                TransferStatus s = MemoryCopy.run(new TransferRequest(op, remote.asSlice(64, 1024), REMOTE, 0, checksum),
                        remote);
                assertFalse(s.completed());
                assertTrue(s.error().contains("overlaps"), s.error());
            }
        }
        assertArrayEquals(before, segment);
        // beside the range, not in it: fine
        assertTrue(MemoryCopy.run(new TransferRequest(TransferOp.READ, remote.asSlice(2048, 1024), REMOTE, 0, true),
                remote).completed());
    }

    @Test
    void aReadIntoReadOnlyMemoryFailsWithoutAChecksum() {
        byte[] data = random(4096);
        TransferStatus s = MemoryCopy.run(new TransferRequest(TransferOp.READ,
                MemorySegment.ofArray(new byte[4096]).asReadOnly(), REMOTE, 0, true), MemorySegment.ofArray(data));
        assertFalse(s.completed());
        assertFalse(s.checksum().isPresent());
    }

    @Test
    void aLargeTransferFromASharedOrAConfinedArenaLandsWithItsChecksum() {
        int size = (int) Checksums.ASIDE_FROM + 12345;
        byte[] data = random(size);
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
            for (Arena owner : List.of(shared, confined)) {
                MemorySegment remote = owner.allocate(size + 64);
                MemorySegment.copy(MemorySegment.ofArray(data), 0, remote, 64, size);
                MemorySegment target = owner.allocate(size);
                TransferStatus read = MemoryCopy.run(new TransferRequest(TransferOp.READ, target, REMOTE, 64, true), remote);
                assertEquals(checksum(data), read.checksum().orElseThrow());
                assertEquals(-1, target.mismatch(MemorySegment.ofArray(data)));

                MemorySegment source = owner.allocate(size);
                MemorySegment.copy(MemorySegment.ofArray(data), 0, source, 0, size);
                MemorySegment written = owner.allocate(size);
                TransferStatus write = MemoryCopy.run(new TransferRequest(TransferOp.WRITE, source, REMOTE, 0, true), written);
                assertEquals(checksum(data), write.checksum().orElseThrow());
                assertEquals(-1, written.mismatch(MemorySegment.ofArray(data)));
            }
        }
    }

    /** The Java path for large copies, which runs where the native kernel does not: the checksum on another thread. */
    @Test
    void theChecksumOnAnotherThreadIsOfTheBytesCopied() {
        int size = (int) Checksums.ASIDE_FROM + 12345;
        byte[] data = random(size);
        try (Arena shared = Arena.ofShared()) {
            MemorySegment from = shared.allocate(size);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, from, 0, size);
            MemorySegment to = shared.allocate(size);
            assertEquals(checksum(data), MemoryCopy.copyWithChecksumAside(from, to));
            assertEquals(-1, to.mismatch(from));
        }
    }

    @Test
    void aRemoteClosedUnderALargeChecksummedReadFailsIt() {
        Arena owner = Arena.ofShared();
        MemorySegment remote = owner.allocate(Checksums.ASIDE_FROM);
        owner.close();
        TransferStatus s = MemoryCopy.run(new TransferRequest(TransferOp.READ,
                MemorySegment.ofArray(new byte[(int) Checksums.ASIDE_FROM]), REMOTE, 0, true), remote);
        assertFalse(s.completed());
        assertFalse(s.checksum().isPresent());
    }

    @Test
    void noChecksumUnlessAsked() {
        byte[] data = random(1000);
        TransferStatus s = MemoryCopy.run(new TransferRequest(TransferOp.WRITE, MemorySegment.ofArray(data), REMOTE, 0),
                MemorySegment.ofArray(new byte[1000]));
        assertTrue(s.completed());
        assertFalse(s.checksum().isPresent());
    }

    @Test
    void aRangeOutsideTheSegmentOrAClosedSegmentFailsWithoutAChecksum() {
        TransferStatus outside = MemoryCopy.run(new TransferRequest(TransferOp.READ, MemorySegment.ofArray(new byte[10]),
                REMOTE, 95, true), MemorySegment.ofArray(new byte[100]));
        assertFalse(outside.completed());
        assertTrue(outside.error().contains("outside segment"), outside.error());
        assertFalse(outside.checksum().isPresent());

        Arena owner = Arena.ofShared();
        MemorySegment remote = owner.allocate(4 * STEP);
        owner.close();
        TransferStatus closed = MemoryCopy.run(new TransferRequest(TransferOp.READ,
                MemorySegment.ofArray(new byte[(int) (3 * STEP)]), REMOTE, 0, true), remote);
        assertFalse(closed.completed());
        assertFalse(closed.checksum().isPresent());
    }
}
