package org.mooncake.osgi.itests;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.AssumptionViolatedException;
import org.junit.runner.Description;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunNotifier;
import org.ops4j.pax.exam.junit.PaxExam;

/**
 * {@link PaxExam} for a test class that drives a real browser: Debian's chromium through
 * {@link Browser#DRIVER}. As with {@link UcxExam}, the check runs in the runner's JVM before the
 * container starts (an assumption inside the container reads as a pass): where either program is
 * missing every test is reported skipped, or failed where {@code mooncake.browser.required=true}
 * (or {@code MOONCAKE_BROWSER_REQUIRED=true}), as CI sets it.
 */
public final class BrowserExam extends PaxExam {
    public BrowserExam(Class<?> klass) throws Exception {
        super(klass);
    }

    static boolean required() {
        return Boolean.getBoolean("mooncake.browser.required")
                || "true".equalsIgnoreCase(System.getenv("MOONCAKE_BROWSER_REQUIRED"));
    }

    /** Why no browser can run here, or null when one can. */
    static String unavailableReason() {
        for (String program : new String[] {Browser.CHROMIUM, Browser.DRIVER}) {
            if (!Files.isExecutable(Path.of(program))) {
                return program + " is missing (apt-get install chromium chromium-driver)";
            }
        }
        return null;
    }

    @Override
    public void run(RunNotifier notifier) {
        String reason = unavailableReason();
        if (reason == null) {
            super.run(notifier);
            return;
        }
        boolean required = required();
        for (Description test : getDescription().getChildren()) {
            notifier.fireTestStarted(test);
            if (required) {
                notifier.fireTestFailure(new Failure(test, new AssertionError(
                        "a browser is required here (mooncake.browser.required=true) but " + reason)));
            } else {
                notifier.fireTestAssumptionFailed(new Failure(test, new AssumptionViolatedException(
                        "skipped: " + reason)));
            }
            notifier.fireTestFinished(test);
        }
    }
}
