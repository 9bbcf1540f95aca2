package org.mooncake.osgi.itests;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.AssumptionViolatedException;
import org.junit.runner.Description;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunNotifier;
import org.ops4j.pax.exam.junit.PaxExam;

/**
 * {@link PaxExam} for a test class that needs UCX. Pax Exam runs a test's {@code @BeforeClass}
 * and its assumptions inside the container, where a violated assumption reads as a pass to the
 * driver, so the check is made here, in the test runner's JVM before the container starts: the
 * ucx bundle's own {@code UcxTransport.available()}, loaded from the jar the test installs. Where
 * it is false every test of the class is reported skipped with the bundle's reason, or failed
 * with it where {@code mooncake.ucx.required=true} (or {@code MOONCAKE_UCX_REQUIRED=true}).
 *
 * <p>That check loads libucp into this JVM (the native container's too) before the bundle does;
 * the bundle's class sets {@code UCX_HANDLE_ERRORS=none} before it loads the library, so UCX's
 * signal handlers are off either way.
 */
public final class UcxExam extends PaxExam {
    static final String BSN = "org.mooncake.osgi.transport.ucx";
    private static final String TRANSPORT = "org.mooncake.osgi.transport.ucx.UcxTransport";

    public UcxExam(Class<?> klass) throws Exception {
        super(klass);
    }

    static boolean required() {
        return Boolean.getBoolean("mooncake.ucx.required") || "true".equalsIgnoreCase(System.getenv("MOONCAKE_UCX_REQUIRED"));
    }

    /** Why the ucx transport cannot start in this JVM, or null when it can; a missing jar is a broken build and throws. */
    static String unavailableReason() throws Exception {
        Path jar = ContainerOptions.ourJar("transport-ucx");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the transport-ucx bundle is not in the distribution: " + jar
                    + "; build it first");
        }
        // the parent gives store-api and store-memory (test dependencies of this module), which the class links to
        try (URLClassLoader loader = new URLClassLoader("ucx-check", new URL[] {jar.toUri().toURL()},
                UcxExam.class.getClassLoader())) {
            Class<?> transport = Class.forName(TRANSPORT, true, loader);
            Method available = transport.getMethod("available");
            if ((Boolean) available.invoke(null)) {
                return null;
            }
            return (String) transport.getMethod("unavailableReason").invoke(null);
        }
    }

    @Override
    public void run(RunNotifier notifier) {
        String reason;
        try {
            reason = unavailableReason();
        } catch (Exception e) {
            notifier.fireTestFailure(new Failure(getDescription(), e));
            return;
        }
        if (reason == null) {
            super.run(notifier);
            return;
        }
        boolean required = required();
        for (Description test : getDescription().getChildren()) {
            notifier.fireTestStarted(test);
            if (required) {
                notifier.fireTestFailure(new Failure(test, new AssertionError(
                        "UCX is required here (mooncake.ucx.required=true) but the ucx transport cannot start: " + reason)));
            } else {
                notifier.fireTestAssumptionFailed(new Failure(test, new AssumptionViolatedException(
                        "skipped: the ucx transport cannot start here: " + reason)));
            }
            notifier.fireTestFinished(test);
        }
    }
}
