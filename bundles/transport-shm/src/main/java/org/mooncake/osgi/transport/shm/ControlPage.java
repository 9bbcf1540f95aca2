package org.mooncake.osgi.transport.shm;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The page after a segment in its shared file: a magic number naming the format, and a flag
 * the owner raises when it withdraws the segment. Peers read the flag before every transfer, a
 * load from shared memory instead of asking the file system whether the file still exists.
 */
final class ControlPage {
    static final long SIZE = 4096;
    /** "MCSHMv01": a file of another format (or version) is refused, not misread. */
    private static final long MAGIC = 0x4d4353484d763031L;
    private static final long MAGIC_AT = 0;
    private static final long WITHDRAWN_AT = 8;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment page;

    private ControlPage(MemorySegment page) {
        this.page = page;
    }

    /** The owner's side: stamps a fresh (zeroed) page. */
    static ControlPage create(MemorySegment page) {
        page.set(ValueLayout.JAVA_LONG, MAGIC_AT, MAGIC);
        return new ControlPage(page);
    }

    /** A peer's side: checks the stamp. */
    static ControlPage open(MemorySegment page, Path file) throws IOException {
        if (page.get(ValueLayout.JAVA_LONG, MAGIC_AT) != MAGIC) {
            throw new IOException(file + " is not a shm segment file of this format");
        }
        return new ControlPage(page);
    }

    void withdraw() {
        INT.setVolatile(page, WITHDRAWN_AT, 1);
    }

    boolean withdrawn() {
        return (int) INT.getVolatile(page, WITHDRAWN_AT) != 0;
    }
}
