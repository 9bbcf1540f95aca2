package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;

/**
 * Threads that put, get (checking every byte) and remove objects through a client until
 * stopped, while a test swaps the client's transports. TRANSFER_FAIL counts as failed cleanly
 * (a transfer in flight on a transport that closed), unless a failed put left a readable object;
 * anything else, and any wrong byte, is collected in {@link #wrong}.
 */
final class SwapLoad implements AutoCloseable {
    final AtomicLong ok = new AtomicLong();
    final AtomicLong failedCleanly = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> workers = new ArrayList<>();

    SwapLoad(StoreClient client, int threads, int minBytes, int spreadBytes) {
        for (int w = 0; w < threads; w++) {
            int id = w;
            workers.add(Thread.ofPlatform().start(() -> run(client, id, minBytes, spreadBytes)));
        }
    }

    private void run(StoreClient client, int id, int minBytes, int spreadBytes) {
        Random rnd = new Random(id);
        for (long i = 0; running.get(); i++) {
            byte[] v = new byte[minBytes + rnd.nextInt(spreadBytes)];
            rnd.nextBytes(v);
            String key = "w" + id + "-" + i;
            boolean stored = false;
            try {
                client.put(key, v, ReplicateConfig.DEFAULT);
                stored = true;
                assertArrayEquals(v, client.get(key));
                client.remove(key, true);
                ok.incrementAndGet();
            } catch (StoreException e) {
                if (e.errorCode() != ErrorCode.TRANSFER_FAIL) {
                    wrong.add(e);
                } else {
                    failedCleanly.incrementAndGet();
                    if (!stored && client.exists(key)) {
                        wrong.add(new AssertionError(key + ": a failed put left a readable object"));
                    }
                }
            } catch (Throwable t) {
                wrong.add(t);
            }
        }
    }

    /** Waits until the threads complete {@code operations} more puts-and-gets. */
    void awaitProgress(int operations, String what) {
        long target = ok.get() + operations;
        await(() -> ok.get() >= target, what);
    }

    /** Polls {@code condition} for up to a minute; no assertion depends on the pause between polls. */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Stops the threads and waits for them. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : workers) {
            t.join();
        }
    }
}
