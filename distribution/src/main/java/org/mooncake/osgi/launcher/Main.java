package org.mooncake.osgi.launcher;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code mooncake start [--profile NAME] [--master HOST:PORT] [--set name=value]... [--instance NAME]
 * [--headless]}: boots a profile in the foreground, with the Gogo shell on the terminal unless
 * headless. Variables (--set, --master) fill the profile's configuration.
 * {@code mooncake demo epd [...]}: the EPD demo, which starts its own processes of this distribution
 * ({@link org.mooncake.osgi.epd.demo.EpdDemo}).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        // the JDK admin server's only guard against a client that sends half a request (read once
        // per JVM, before its first server starts): cut off after 10 s; a -D on the command line wins
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", "10");
        }
        String profile = "all-in-one";
        String instance = null;
        boolean headless = false;
        Map<String, String> vars = new HashMap<>();
        if (args.length > 0 && "demo".equals(args[0])) {
            System.exit(demo(args));
        }
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            System.out.println(USAGE + "\n" + DEMO_USAGE + "\n       ./mooncake bench transfer|policies|anatomy|faults --help   (from a source checkout)");
            System.exit(0);
        }
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
                case "--instance" -> instance = value(args, ++i, "--instance needs a name");
                case "--master" -> vars.put("master", value(args, ++i, "--master needs HOST:PORT"));
                case "--set" -> {
                    String kv = value(args, ++i, "--set needs name=value");
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        usage("--set needs name=value, was " + kv);
                    }
                    vars.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        Path home = Path.of(System.getProperty("mooncake.home", ".")).toAbsolutePath().normalize();
        Profile p;
        LaunchPlan plan;
        try {
            p = new FeatureReader(home.resolve("features")).profile(profile);
            plan = p.resolve(vars);
        } catch (java.io.IOException | IllegalArgumentException e) {
            usage(e.getMessage()); // a feature file that does not read, or a variable unknown or missing
            return;
        }
        Map<String, String> props = new HashMap<>();
        if (headless || System.console() == null) {
            props.put("gosh.args", "--nointeractive");
        }
        String name = instance != null ? instance : profile;
        System.out.println("mooncake: starting profile " + profile + " " + p.featureNames() + " as " + name + " from " + home);
        Container c;
        try {
            c = Container.start(home, name, plan, props);
        } catch (Exception e) {
            System.err.println("mooncake: failed to start: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "mooncake-shutdown"));
        for (String url : c.httpEndpoints()) {
            System.out.println("mooncake: http endpoint on " + url);
        }
        System.out.println("mooncake: " + name + " up; " + (headless ? "stop with SIGTERM." : "type 'help store' or 'stop 0'."));
        c.awaitStop();
        System.exit(0);
    }

    /** {@code demo epd [options]}: the demo's options and help are its own. */
    private static int demo(String[] args) throws Exception {
        if (args.length < 2 || !"epd".equals(args[1])) {
            System.err.println("mooncake: " + (args.length < 2 ? "which demo?" : "unknown demo " + args[1])
                    + " (there is one: epd)\n" + DEMO_USAGE);
            return 2;
        }
        return org.mooncake.osgi.epd.demo.EpdDemo.run(java.util.Arrays.copyOfRange(args, 2, args.length), System.out,
                System.err, Path.of("").toAbsolutePath());
    }

    private static String value(String[] args, int i, String problem) {
        if (i >= args.length) {
            usage(problem);
        }
        return args[i];
    }

    private static final String USAGE = "usage: mooncake start [--profile all-in-one|all-policies|master|storage|client"
            + "|epd-encoder|epd-prefill|epd-decode|epd-aggregated|epd-proxy]"
            + " [--master HOST:PORT] [--set name=value]... [--instance NAME] [--headless]";
    private static final String DEMO_USAGE = "       mooncake demo epd [--out DIR] [--model demo|tiny] [--mode both|epd|aggregated]"
            + " [--rounds N] [--keep] [--help]";

    private static void usage(String problem) {
        System.err.println("mooncake: " + problem + "\n" + USAGE + "\n" + DEMO_USAGE);
        System.exit(2);
    }
}
