package org.mooncake.osgi.itests;

import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;

/**
 * Put/get load that remembers every put the store acknowledged, so that a test can check after a
 * swap that none was lost: one thread per data type puts objects and reads each back at once;
 * past {@code perThread} objects a thread only reads (random earlier objects), so the store
 * stays below its eviction watermark and every acknowledged object must stay readable.
 */
final class AcknowledgedLoad {
    private static final ObjectDataType[] TYPES = {ObjectDataType.KVCACHE, ObjectDataType.HIDDEN_STATE};

    private final StoreClient client;
    private final int perThread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong ops = new AtomicLong();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Per thread, the keys whose put returned; read by the test only after {@link #stop()}. */
    private final List<List<String>> acknowledged = new ArrayList<>();

    AcknowledgedLoad(StoreClient client, int perThread) {
        this.client = client;
        this.perThread = perThread;
    }

    /** The bytes of {@code key}: a size of 1 byte to 4 KiB and a content that follow from the key alone. */
    static byte[] value(String key) {
        SplittableRandom r = new SplittableRandom(key.hashCode() * 0x9E3779B97F4A7C15L);
        byte[] b = new byte[1 + r.nextInt(4096)];
        r.nextBytes(b);
        return b;
    }

    void start(String prefix) {
        for (ObjectDataType type : TYPES) {
            List<String> acked = new ArrayList<>(perThread);
            acknowledged.add(acked);
            String name = prefix + "-" + type.name().toLowerCase();
            threads.add(Thread.ofPlatform().name(name).start(() -> run(name, type, acked)));
        }
    }

    private void run(String name, ObjectDataType type, List<String> acked) {
        ReplicateConfig cfg = ReplicateConfig.builder().dataType(type).build();
        SplittableRandom pick = new SplittableRandom(name.hashCode());
        for (long i = 0; running.get(); i++) {
            String op = "";
            String key = "";
            try {
                if (acked.size() < perThread) {
                    key = name + "-" + i;
                    op = "put";
                    client.put(key, value(key), cfg);
                    acked.add(key);
                } else {
                    key = acked.get(pick.nextInt(acked.size()));
                }
                op = "get";
                check(key);
                ops.incrementAndGet();
            } catch (Throwable t) {
                failures.add(op + " " + key + ": " + t);
                return;
            }
        }
    }

    private void check(String key) {
        byte[] expected = value(key);
        byte[] got = client.get(key);
        if (!Arrays.equals(expected, got)) {
            throw new AssertionError("wrong bytes for " + key + ": " + got.length + " bytes, expected " + expected.length);
        }
    }

    /** Waits until the load did {@code more} operations beyond what it had done when called; fails at once on a failure. */
    void progresses(String during, long more) throws Exception {
        long mark = ops.get();
        Await.until("the load making progress " + during, () -> {
            noFailures();
            return ops.get() >= mark + more;
        });
    }

    void noFailures() {
        assertTrue("failed operations: " + failures, failures.isEmpty());
    }

    long operations() {
        return ops.get();
    }

    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join();
        }
    }

    /** After {@link #stop()}: reads every acknowledged object back and checks its bytes; the number checked. */
    int checkEveryAcknowledgedPut() {
        int checked = 0;
        for (List<String> keys : acknowledged) {
            for (String key : keys) {
                check(key);
                checked++;
            }
        }
        return checked;
    }
}
