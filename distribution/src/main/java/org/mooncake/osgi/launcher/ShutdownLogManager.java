package org.mooncake.osgi.launcher;

import java.util.logging.LogManager;

/**
 * The JDK's log manager, except that its own shutdown hook no longer silences the log. That hook
 * resets every handler as the JVM begins to exit, in parallel with the launcher's hook that stops
 * the container, so on SIGTERM what bundles say while they stop (a policy withdrawn, a segment
 * unmounted and the objects it took along) was lost. Handlers flush every record, so nothing is
 * left to reset at exit. {@code bin/mooncake} names this class in {@code java.util.logging.manager}.
 */
public final class ShutdownLogManager extends LogManager {
    /** The JDK's hook thread, private to {@link LogManager}. */
    static final String JDK_CLEANER = "java.util.logging.LogManager$Cleaner";

    @Override
    public void reset() {
        if (!isJdkCleaner(Thread.currentThread())) {
            super.reset();
        }
    }

    static boolean isJdkCleaner(Thread t) {
        return t.getClass().getName().equals(JDK_CLEANER);
    }
}
