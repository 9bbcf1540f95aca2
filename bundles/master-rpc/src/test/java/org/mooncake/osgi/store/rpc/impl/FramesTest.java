package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;

class FramesTest {
    private static final int LIMIT = 16 << 20;

    private static DataInputStream stream(int magic, int length, byte[] body) {
        return new DataInputStream(new ByteArrayInputStream(
                ByteBuffer.allocate(8 + body.length).putInt(magic).putInt(length).put(body).array()));
    }

    @Test
    void aFrameWithinTheLimitIsReadWhole() throws IOException {
        assertArrayEquals(new byte[] {1, 2, 3}, Frames.read(stream(Frames.MAGIC, 3, new byte[] {1, 2, 3}), LIMIT));
    }

    @Test
    void aFrameOverTheLimitOrBelowZeroIsRefused() {
        assertThrows(Frames.BadFrame.class, () -> Frames.read(stream(Frames.MAGIC, LIMIT + 1, new byte[0]), LIMIT));
        assertThrows(Frames.BadFrame.class, () -> Frames.read(stream(Frames.MAGIC, -1, new byte[0]), LIMIT));
        assertThrows(Frames.BadFrame.class, () -> Frames.read(stream(0x4D435232, 1, new byte[1]), LIMIT));
    }

    /** A peer that announces the largest frame and sends 10 bytes makes the reader hold about 10, not 16 MiB. */
    @Test
    void anAnnouncedLengthIsNotAllocatedBeforeItsBytesArrive() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        DataInputStream in = stream(Frames.MAGIC, LIMIT, new byte[10]);
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThrows(EOFException.class, () -> Frames.read(in, LIMIT));
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1 << 20, allocated + " bytes allocated for a frame that brought 10");
    }

    @Test
    void aNullBodyIsNotAMessage() {
        byte[] cborNull = {(byte) 0xf6};
        assertThrows(MismatchedInputException.class, () -> Messages.CBOR.readValue(cborNull, Messages.Request.class));
        assertThrows(MismatchedInputException.class, () -> Messages.CBOR.readValue(cborNull, Messages.Response.class));
    }
}
