package org.mooncake.osgi.epd.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The command line of {@code mooncake demo epd}. */
public record DemoOptions(Path out, ModelSize model, Mode mode, boolean keep, int rounds, boolean help) {

    /** Which path the requests take. */
    public enum Mode {
        /** Through the proxy (E, P, D and the store) and the aggregated worker, answers compared. */
        BOTH,
        /** Through the proxy only. */
        EPD,
        /** Through the aggregated worker alone. */
        AGGREGATED;

        public boolean epd() {
            return this != AGGREGATED;
        }

        public boolean aggregated() {
            return this != EPD;
        }

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final String USAGE = """
            usage: mooncake demo epd [--out DIR] [--model demo|tiny] [--mode both|epd|aggregated] [--rounds N] [--keep] [--help]
              Starts a master, a storage node, encoder, prefill and decode workers, an aggregated worker
              and the EPD proxy as processes on loopback, runs a matrix of requests through the proxy and
              through the aggregated worker and compares the answers token for token, checks the store
              counters behind each case, measures the connectors' transfers against plain store put/get,
              runs a short streaming load through both paths, then stops every process.
              --out DIR     where the report, logs/, epd-demo.json and epd-demo.png go (default ./epd-demo-out)
              --model M     demo: 256x256 images, 1 MiB hidden state each (default); tiny: 64x64, for tests
              --mode M      both (default), epd (the proxy only) or aggregated (the aggregated worker only)
              --rounds N    rounds of the load phase (default 3; 0 skips it)
              --keep        leave the processes running at the end and print their URLs
              Exit status: 0 all cases passed, 1 a case, a counter or a process failed, 2 bad usage.
              Child JVM options: MOONCAKE_DEMO_JAVA_OPTS (replaces the demo's small-heap defaults).""";

    /**
     * Parses {@code args}; {@code --out} resolves against {@code cwd}, the caller's working directory.
     *
     * @throws IllegalArgumentException for an unknown option, a missing or bad value
     */
    public static DemoOptions parse(List<String> args, Path cwd) {
        Path out = cwd.resolve("epd-demo-out");
        ModelSize model = ModelSize.DEMO;
        Mode mode = Mode.BOTH;
        boolean keep = false;
        boolean help = false;
        int rounds = 3;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--help", "-h" -> help = true;
                case "--keep" -> keep = true;
                case "--out" -> out = cwd.resolve(value(args, ++i, a));
                case "--model" -> model = ModelSize.of(value(args, ++i, a));
                case "--mode" -> mode = mode(value(args, ++i, a));
                case "--rounds" -> rounds = rounds(value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new DemoOptions(out.toAbsolutePath().normalize(), model, mode, keep, rounds, help);
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size() || args.get(i).startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(i);
    }

    private static Mode mode(String s) {
        for (Mode m : Mode.values()) {
            if (m.id().equals(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--mode must be both, epd or aggregated, was " + s);
    }

    private static int rounds(String s) {
        try {
            int n = Integer.parseInt(s);
            if (n >= 0 && n <= 100) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--rounds must be a number from 0 to 100, was " + s);
    }
}
