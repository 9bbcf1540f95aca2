package org.mooncake.osgi.transport.shm;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The claim of a live process on a segment file: a lock file beside it ({@code X.lock} for
 * {@code X.seg}), locked by the owner for as long as the segment exists. The kernel drops the
 * lock when the owner ends in any way, SIGKILL and crashes included, so a segment file whose
 * lock can be taken was left behind by a process that is gone: {@link #removeOrphans} deletes it,
 * and the memory a tmpfs held for it is free again. Without this every killed storage node left
 * its whole segment in {@code /dev/shm} until the host rebooted, and a node restarting in a loop
 * ran out of room.
 *
 * <p>Why a separate file: POSIX drops every lock a process holds on a file when the process
 * closes any descriptor of it, and peers open and close the segment file to map it. Only the
 * owner opens the lock file, and this JVM never probes the lock files it holds ({@link #HELD}).
 */
final class OwnerLock {
    private static final System.Logger LOG = System.getLogger(OwnerLock.class.getName());
    /** Lock files this JVM holds, whichever transport instance took them. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path file;
    private final FileChannel channel;

    private OwnerLock(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** The lock file of a segment file. */
    static Path lockFileOf(Path segmentFile) {
        return segmentFile.resolveSibling(segmentFile.getFileName().toString().replaceFirst("\\.seg$", "") + ".lock");
    }

    /** Creates and locks the lock file of {@code segmentFile}, which does not exist yet. */
    static OwnerLock take(Path segmentFile) throws IOException {
        Path lock = lockFileOf(segmentFile);
        FileChannel ch = OwnerOnlyFiles.createNew(lock, StandardOpenOption.WRITE);
        try {
            HELD.add(lock);
            if (ch.tryLock() == null || !Files.exists(lock)) { // a reaper took it between create and lock
                throw new IOException("lost the race for " + lock);
            }
            return new OwnerLock(lock, ch);
        } catch (IOException | RuntimeException e) {
            HELD.remove(lock);
            ch.close();
            Files.deleteIfExists(lock);
            throw e;
        }
    }

    /** Lets go of the claim and deletes the lock file; its segment file is deleted already. */
    void release() {
        try {
            Files.deleteIfExists(file);
            channel.close(); // releases the lock
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot remove {0}: {1}", file, e);
        } finally {
            HELD.remove(file);
        }
    }

    /**
     * Deletes the segment files in {@code directory} whose owner is gone, with their lock files;
     * returns how many. A segment file without a lock file (made by a version before this one) is
     * left alone: nothing tells whether its owner lives.
     */
    static int removeOrphans(Path directory) {
        int removed = 0;
        try (DirectoryStream<Path> locks = Files.newDirectoryStream(directory, "mooncake-*.lock")) {
            for (Path lock : locks) {
                if (!HELD.contains(lock) && removeIfOrphan(lock)) {
                    removed++;
                }
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot look for segment files left by ended processes in {0}: {1}", directory, e);
        }
        return removed;
    }

    private static boolean removeIfOrphan(Path lock) {
        Path segment = lock.resolveSibling(lock.getFileName().toString().replaceFirst("\\.lock$", "") + ".seg");
        try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock taken = ch.tryLock();
            if (taken == null) {
                return false; // its owner lives
            }
            long bytes = Files.exists(segment) ? Files.size(segment) : 0;
            Files.deleteIfExists(segment);
            Files.deleteIfExists(lock);
            LOG.log(Level.INFO, "removed {0} ({1} bytes): the process that owned this segment ended without removing it",
                    segment, bytes);
            return true;
        } catch (NoSuchFileException | OverlappingFileLockException gone) {
            return false; // another reaper, or this JVM
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot tell whether the owner of {0} lives: {1}", segment, e);
            return false;
        }
    }
}
