package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs of a few megabytes more than one shm segment, mounted for the shm storage node's
 * segment files (never the host's {@code /dev/shm}), and a file that fills whatever it has free.
 * Mounting needs root ({@code mount -t tmpfs}); where that is refused the fault kind is skipped.
 */
final class SmallTmpfs implements AutoCloseable {
    private final Path dir;

    private SmallTmpfs(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs of {@code bytes} on {@code dir} (made if needed), unmounting a previous run's first. */
    static SmallTmpfs mount(Path dir, long bytes) throws IOException {
        Files.createDirectories(dir);
        if (mounted(dir)) {
            run(List.of("umount", dir.toString()));
        }
        run(List.of("mount", "-t", "tmpfs", "-o", "size=" + bytes + ",mode=0700", "tmpfs", dir.toString()));
        return new SmallTmpfs(dir);
    }

    Path dir() {
        return dir;
    }

    private Path filler() {
        return dir.resolve("filler");
    }

    /** Writes a file until the file system is full; the bytes it took. */
    long fill() throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        long written = 0;
        try (FileChannel ch = FileChannel.open(filler(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            while (true) {
                chunk.clear();
                written += ch.write(chunk);
            }
        } catch (IOException full) {
            if (Files.getFileStore(dir).getUsableSpace() >= 1 << 20) {
                throw full; // not the file system being full
            }
            return written;
        }
    }

    /** Deletes the filling file. */
    void free() throws IOException {
        Files.deleteIfExists(filler());
    }

    long usableBytes() throws IOException {
        return Files.getFileStore(dir).getUsableSpace();
    }

    @Override
    public void close() throws IOException {
        if (mounted(dir)) {
            run(List.of("umount", "-l", dir.toString()));
        }
    }

    private static boolean mounted(Path dir) throws IOException {
        String abs = dir.toAbsolutePath().normalize().toString();
        return Files.readAllLines(Path.of("/proc/mounts")).stream().map(l -> l.split(" "))
                .anyMatch(f -> f.length > 1 && f[1].equals(abs));
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
    }
}
