package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** CRC32C over a memory segment of any size, heap or native, without copying it. */
final class Checksums {
    private static final long SLICE = 1L << 30;

    private Checksums() {
    }

    static int crc32c(MemorySegment data) {
        CRC32C crc = new CRC32C();
        for (long off = 0; off < data.byteSize(); off += SLICE) {
            crc.update(data.asSlice(off, Math.min(SLICE, data.byteSize() - off)).asByteBuffer());
        }
        return (int) crc.getValue();
    }
}
