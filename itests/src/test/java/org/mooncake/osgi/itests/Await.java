package org.mooncake.osgi.itests;

import java.util.concurrent.Callable;

/** Waits for a condition the system under test will reach; a bounded wait, not a timing assertion. */
final class Await {
    private Await() {
    }

    static void until(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting for: " + what);
            }
            Thread.onSpinWait();
            Thread.sleep(1);
        }
    }
}
