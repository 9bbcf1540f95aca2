package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.mooncake.osgi.benchmarks.faults.OpLog.Op;

/** Follows a worker's {@link OpLog} as it grows, to know which of its operations are in flight now. */
final class LogTail {
    private final Path file;
    private long offset;
    private final StringBuilder partial = new StringBuilder();
    private final Map<String, Op> open = new HashMap<>();

    LogTail(Path file) {
        this.file = file;
    }

    /** Reads what was appended since the last call; whether an operation {@code op} is in flight now. */
    boolean inFlight(Op op) throws IOException {
        if (Files.exists(file)) {
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long len = f.length();
                if (len > offset) {
                    byte[] b = new byte[(int) Math.min(len - offset, 1 << 24)];
                    f.seek(offset);
                    f.readFully(b);
                    offset += b.length;
                    partial.append(new String(b, StandardCharsets.UTF_8));
                }
            }
        }
        int nl;
        while ((nl = partial.indexOf("\n")) >= 0) {
            String[] f = partial.substring(0, nl).split(" ");
            partial.delete(0, nl + 1);
            if (f.length >= 6) {
                String id = f[3];
                if (f[0].equals("B")) {
                    open.put(id, Op.valueOf(f[4]));
                } else {
                    open.remove(id);
                }
            }
        }
        return open.containsValue(op);
    }
}
