package org.mooncake.osgi.epd.demo;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;

/** {@code mooncake demo epd [options]}: see {@link DemoOptions#USAGE}. */
public final class EpdDemo {
    private EpdDemo() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err, Path.of("").toAbsolutePath()));
    }

    /** Runs the demo; returns the exit status (0 passed, 1 failed, 2 bad usage). */
    public static int run(String[] args, PrintStream out, PrintStream err, Path cwd) throws Exception {
        DemoOptions options;
        try {
            options = DemoOptions.parse(Arrays.asList(args), cwd);
        } catch (IllegalArgumentException e) {
            err.println("mooncake demo epd: " + e.getMessage() + "\n" + DemoOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(DemoOptions.USAGE);
            return 0;
        }
        // the chart draws off screen; a desktop session must not matter
        System.setProperty("java.awt.headless", "true");
        Path home;
        try {
            home = MooncakeHome.locate();
        } catch (IllegalStateException e) {
            err.println("mooncake demo epd: " + e.getMessage());
            return 1;
        }
        return new DemoRun(options, home, out).execute();
    }
}
