package org.mooncake.osgi.launcher;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code mooncake start [--profile NAME] [--headless]}: boots a profile's features in the
 * foreground, with the Gogo shell on the terminal unless headless.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String profile = "all-in-one";
        boolean headless = false;
        if (args.length == 0 || !"start".equals(args[0])) {
            usage("expected a command");
        }
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--profile" -> {
                    if (i + 1 >= args.length) {
                        usage("--profile needs a name");
                    }
                    profile = args[++i];
                }
                case "--headless" -> headless = true;
                default -> usage("unknown option " + args[i]);
            }
        }
        Path home = Path.of(System.getProperty("mooncake.home", ".")).toAbsolutePath().normalize();
        List<String> features = new FeatureReader(home.resolve("features")).profile(profile);
        Map<String, String> props = new HashMap<>();
        if (headless || System.console() == null) {
            props.put("gosh.args", "--nointeractive");
        }
        System.out.println("mooncake: starting profile " + profile + " " + features + " from " + home);
        Container c;
        try {
            c = Container.start(home, features, props);
        } catch (Exception e) {
            System.err.println("mooncake: failed to start: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "mooncake-shutdown"));
        System.out.println("mooncake: up. Admin endpoint http://localhost:9003/ (see etc/); "
                + (headless ? "stop with SIGTERM." : "type 'help store' or 'stop 0'."));
        c.awaitStop();
        System.exit(0);
    }

    private static void usage(String problem) {
        System.err.println("mooncake: " + problem + "\nusage: mooncake start [--profile all-in-one|all-policies|everything] [--headless]");
        System.exit(2);
    }
}
