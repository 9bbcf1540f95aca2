package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the bench commands accept: each value parsed and checked against its range, with a
 * message that names the option and what it takes. A bad command line is the user's mistake, so
 * {@link #orExit} ends the program with that message and status 2, before any run starts, instead
 * of a stack trace (or, worse, a run on a value that makes no sense: zero seeds, a capacity of
 * 150%, a lease of -5 ms that the master refuses minutes later).
 */
public final class BenchArgs {
    /** A command line the program cannot run with. */
    public static class Mistake extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public Mistake(String message) {
            super(message);
        }
    }

    /** {@code --help} or {@code -h} was given: its message is the usage, printed with exit status 0. */
    public static final class Help extends Mistake {
        private static final long serialVersionUID = 1L;

        public Help(String usage) {
            super(usage);
        }
    }

    /** Throws {@link Help} with {@code usage} if {@code args} ask for it, wherever they do. */
    public static void helpIfAsked(String[] args, String usage) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                throw new Help(usage);
            }
        }
    }

    /** Parses a command line, or reads the input it names; may throw {@link Mistake} or {@link IOException}. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws IOException;
    }

    private BenchArgs() {
    }

    /**
     * The result of {@code step}; on a {@link Mistake} or an unreadable input, prints
     * {@code command: message} and exits with status 2.
     */
    public static <T> T orExit(String command, Step<T> step) {
        try {
            return step.run();
        } catch (Help h) {
            System.out.println(h.getMessage());
            System.exit(0);
            throw new AssertionError("unreachable");
        } catch (Mistake | IOException e) {
            System.err.println(command + ": " + e.getMessage());
            System.exit(2);
            throw new AssertionError("unreachable");
        }
    }

    /** The value after the option at {@code args[i]}; refuses none, or another option in its place. */
    public static String valueOf(String[] args, int i) {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
            throw new Mistake(args[i] + " needs a value");
        }
        return args[i + 1];
    }

    public static int wholeNumber(String option, String value, int min, int max) {
        return (int) wholeNumber(option, value, (long) min, max);
    }

    public static long wholeNumber(String option, String value, long min, long max) {
        long n;
        try {
            n = Long.parseLong(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new Mistake(option + " takes a whole number from " + min + " to " + max + ", was '" + value + "'");
        }
        if (n < min || n > max) {
            throw new Mistake(option + " takes a whole number from " + min + " to " + max + ", was " + n);
        }
        return n;
    }

    /** A finite number in {@code (above, atMost]}. */
    public static double number(String option, String value, double above, double atMost) {
        double d;
        try {
            d = Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d > above && d <= atMost)) { // also refuses NaN, and infinity where atMost is finite
            throw new Mistake(option + " takes a number above " + plain(above) + " and at most " + plain(atMost)
                    + ", was '" + value + "'");
        }
        return d;
    }

    /** A comma-separated list of numbers, each in {@code (above, atMost]}; at least one. */
    public static double[] numbers(String option, String value, double above, double atMost) {
        String[] parts = value.split(",", -1);
        double[] out = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = number(option, parts[i], above, atMost);
        }
        return out;
    }

    /** A number from 0 to {@code atMost}, both ends in (seconds, for instance). */
    public static double nonNegative(String option, String value, double atMost) {
        double d;
        try {
            d = Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d >= 0 && d <= atMost)) {
            throw new Mistake(option + " takes a number from 0 to " + plain(atMost) + ", was '" + value + "'");
        }
        return d;
    }

    private static final java.util.regex.Pattern BYTE_SIZE = java.util.regex.Pattern
            .compile("([0-9][0-9_]*)\\s*(B|KiB|MiB|GiB|kB|KB|MB|GB)?");

    /** What {@link #byteSize} takes, for messages. */
    static final String BYTE_SIZE_FORMS = "a whole number of bytes, optionally with B, KiB, MiB, GiB (1024s) "
            + "or kB, MB, GB (1000s), such as 4KiB or 32062464";

    /** A size in bytes, such as {@code 64KiB}, {@code 1MiB}, {@code 32MB} or {@code 32062464}, in {@code [min, max]}. */
    public static long byteSize(String option, String value, long min, long max) {
        var m = BYTE_SIZE.matcher(value.strip());
        long n;
        try {
            if (!m.matches()) {
                throw new NumberFormatException();
            }
            long unit = switch (m.group(2) == null ? "B" : m.group(2)) {
                case "KiB" -> 1L << 10;
                case "MiB" -> 1L << 20;
                case "GiB" -> 1L << 30;
                case "kB", "KB" -> 1_000L;
                case "MB" -> 1_000_000L;
                case "GB" -> 1_000_000_000L;
                default -> 1L;
            };
            n = Math.multiplyExact(Long.parseLong(m.group(1).replace("_", "")), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new Mistake(option + " takes sizes, each " + BYTE_SIZE_FORMS + ", was '" + value + "'");
        }
        if (n < min || n > max) {
            throw new Mistake(option + " takes sizes from " + min + " B to " + max + " B, was '" + value + "' (" + n
                    + " B)");
        }
        return n;
    }

    /** A comma-separated list of {@link #byteSize}s, at least one; ascending, each once. */
    public static long[] byteSizes(String option, String value, long min, long max) {
        return java.util.Arrays.stream(value.split(",", -1)).mapToLong(v -> byteSize(option, v, min, max)).distinct()
                .sorted().toArray();
    }

    /** One of an enum's constants, by name in any case (a dash counts as an underscore). */
    public static <E extends Enum<E>> E choice(String option, String value, Class<E> type) {
        String name = value.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new Mistake(option + " takes one of " + Arrays.stream(type.getEnumConstants())
                .map(e -> e.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", ")) + ", was '" + value + "'");
    }

    /** {@code true} or {@code false}, nothing else. */
    public static boolean bool(String option, String value) {
        return switch (value.strip()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new Mistake(option + " takes true or false, was '" + value + "'");
        };
    }

    /**
     * A directory the results can be written to, created if missing; checked now, so that a run
     * of minutes does not end without its results.
     */
    public static Path outputDirectory(String option, String dir) {
        Path p;
        try {
            p = Path.of(dir);
            Files.createDirectories(p);
        } catch (InvalidPathException | IOException e) {
            throw new Mistake(option + ": cannot create directory " + dir + " (" + reason(e) + ")");
        }
        if (!Files.isWritable(p)) {
            throw new Mistake(option + ": directory " + dir + " is not writable");
        }
        return p;
    }

    /** An existing, readable regular file. */
    public static Path inputFile(String option, String file) {
        Path p;
        try {
            p = Path.of(file);
        } catch (InvalidPathException e) {
            throw new Mistake(option + ": " + file + " is not a file name (" + e.getMessage() + ")");
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new Mistake(option + ": " + file + " is not a readable file");
        }
        return p;
    }

    private static String reason(Exception e) {
        if (e instanceof java.nio.file.FileSystemException fs) { // its message is mostly the path we name already
            return fs.getReason() != null ? fs.getReason()
                    : e.getClass().getSimpleName().replaceFirst("Exception$", "").replaceAll("(?<=[a-z])(?=[A-Z])", " ")
                            .toLowerCase(Locale.ROOT); // NoSuchFileException: "no such file"
        }
        return e.getMessage();
    }

    private static String plain(double d) {
        return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
