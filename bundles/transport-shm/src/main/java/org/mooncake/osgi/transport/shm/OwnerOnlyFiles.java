package org.mooncake.osgi.transport.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * New files that only their owner may read and write (0600, less what the umask removes): a
 * segment file holds other people's objects, and every process that maps it runs as the same
 * user. The permissions are given at creation, so there is no moment when the file is open to
 * others. A file system without POSIX permissions gets its default.
 */
final class OwnerOnlyFiles {
    static final Set<PosixFilePermission> OWNER_READ_WRITE =
            Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    private OwnerOnlyFiles() {
    }

    /** Creates {@code file}, which must not exist, and opens it with {@code options} besides CREATE_NEW. */
    static FileChannel createNew(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> all = new java.util.HashSet<>(Set.of(options));
        all.add(StandardOpenOption.CREATE_NEW);
        return FileChannel.open(file, all, attributes(file.getFileSystem()));
    }

    private static FileAttribute<?>[] attributes(FileSystem fs) {
        return fs.supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE)}
                : new FileAttribute<?>[0];
    }
}
