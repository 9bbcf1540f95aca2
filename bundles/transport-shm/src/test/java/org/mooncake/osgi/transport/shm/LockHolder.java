package org.mooncake.osgi.transport.shm;

import java.nio.file.Files;
import java.nio.file.Path;

/** Another process that owns a segment file until it is killed: for {@link OrphanedSegmentTest}. */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        Path segment = Path.of(args[0]);
        OwnerLock.take(segment);
        Files.write(segment, new byte[4096]);
        System.out.println("locked");
        System.out.flush();
        System.in.read(); // until killed
    }
}
