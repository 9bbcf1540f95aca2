package org.mooncake.osgi.epd.worker.impl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Plain store puts and gets of objects of a given size, through this worker's store client: the
 * baseline a connector's transfers are compared with (same process, transports and store; no
 * tensor header, no connector). The objects are removed afterwards. A gap may leave the store idle
 * before the puts and again before the gets, as it is between a worker's requests: a get right
 * after its own put finds connections, threads and caches warm that a request finds idle (on two
 * vCPUs, 1 MiB over loopback TCP: 500-700 MiB/s warm, 150-250 after 300 ms idle).
 */
final class StoreProbe {
    static final long MAX_BYTES = 64L << 20;
    static final int MAX_COUNT = 256;

    private StoreProbe() {
    }

    /** {@code count} puts then gets of {@code bytes}-byte objects, idle {@code gapMs} before the puts and before the gets. */
    static ObjectNode run(StoreClient client, long bytes, int count, long gapMs) {
        if (bytes < 1 || bytes > MAX_BYTES || count < 1 || count > MAX_COUNT) {
            throw ApiError.badRequest("invalid_value", "bytes", "bytes must be 1 to " + MAX_BYTES + " and count 1 to "
                    + MAX_COUNT);
        }
        String prefix = "epd-probe/" + UUID.randomUUID() + "/";
        List<String> keys = new ArrayList<>(count);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(bytes, 64);
            byte[] noise = new byte[(int) Math.min(bytes, 1 << 20)];
            new Random(bytes).nextBytes(noise);
            for (long off = 0; off < bytes; off += noise.length) {
                MemorySegment.copy(MemorySegment.ofArray(noise), 0, source, off, Math.min(noise.length, bytes - off));
            }
            MemorySegment target = arena.allocate(bytes, 64);
            sleep(gapMs);
            long putStart = System.nanoTime();
            for (int i = 0; i < count; i++) {
                keys.add(prefix + i);
                client.putFrom(prefix + i, source, ReplicateConfig.DEFAULT);
            }
            long putNanos = System.nanoTime() - putStart;
            sleep(gapMs);
            long getStart = System.nanoTime();
            for (String k : keys) {
                client.getInto(k, target);
            }
            long getNanos = System.nanoTime() - getStart;
            ObjectNode out = Replies.JSON.createObjectNode();
            out.set("put", figures(count, bytes, putNanos));
            out.set("get", figures(count, bytes, getNanos));
            return out;
        } finally {
            client.removeBatch(keys, true);
        }
    }

    private static void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiError.server(503, "interrupted", "interrupted");
        }
    }

    private static ObjectNode figures(int count, long bytes, long nanos) {
        double seconds = nanos / 1e9;
        return Replies.JSON.createObjectNode().put("objects", count).put("bytes", count * bytes).put("seconds", seconds)
                .put("mib_per_s", count * bytes / seconds / (1 << 20));
    }
}
