package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The processes of a fault run, on loopback: a master, storage nodes and load workers, each a
 * real process started from the built distribution ({@code bin/mooncake start}) or, for a
 * worker, a JVM on the benchmarks' class path. The distribution is copied first (without its
 * runtime/), so that a build that replaces it during a long run cannot hand a restarted process
 * half a jar. Every container gets a home of its own (links to the copy's lib/, system/ and
 * features/, its own etc/ and deploy/), so that a jar dropped into one process's deploy/ reaches
 * that process alone.
 */
public final class Cluster implements AutoCloseable {
    /** A process of the cluster, as last started. */
    public static final class Node {
        final String name;
        final String profile;
        final List<String> sets;
        final Path home;
        Process process;
        int starts;

        Node(String name, String profile, List<String> sets, Path home) {
            this.name = name;
            this.profile = profile;
            this.sets = List.copyOf(sets);
            this.home = home;
        }

        public String name() {
            return name;
        }

        public long pid() {
            return process.pid();
        }

        public Path deploy() {
            return home.resolve("deploy");
        }

        public boolean alive() {
            return process != null && process.isAlive();
        }
    }

    private final Path distribution;
    private final Path dir;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<Process> others = new ArrayList<>();

    /**
     * @param distribution the built distribution ({@code distribution/target/mooncake})
     * @param dir          where homes and logs go
     */
    public Cluster(Path distribution, Path dir) throws IOException {
        if (!Files.isRegularFile(distribution.resolve("bin/mooncake"))) {
            throw new IOException("no distribution at " + distribution + ": build it first (./mvnw -B -q -DskipTests install)");
        }
        this.dir = Files.createDirectories(dir.toAbsolutePath());
        this.distribution = snapshot(distribution.toAbsolutePath(), this.dir.resolve("distribution"));
    }

    private static Path snapshot(Path from, Path to) throws IOException {
        for (String part : List.of("bin", "lib", "system", "features", "etc")) {
            try (var files = Files.walk(from.resolve(part))) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Path target = to.resolve(from.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(f, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        return to;
    }

    /** The copy of the distribution the processes run from. */
    public Path distribution() {
        return distribution;
    }

    public Path dir() {
        return dir;
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Adds and starts a container process of {@code profile} with its {@code --set name=value} variables. */
    public Node container(String name, String profile, List<String> sets) throws IOException {
        Node n = new Node(name, profile, sets, home(name));
        nodes.put(name, n);
        start(n);
        return n;
    }

    /**
     * The one place a container's command line is made: every start and restart of the fault
     * suite goes through here. A profile that declares {@code tls.insecure} (cluster profiles
     * refuse to start without TLS unless it is set) gets it, since this suite measures faults,
     * not authentication.
     */
    List<String> command(Node n) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", n.home.resolve("bin/mooncake").toString(), "start",
                "--headless", "--instance", n.name, "--profile", n.profile));
        for (String s : n.sets) {
            cmd.addAll(List.of("--set", s));
        }
        if (profileVariables(n.profile).has("tls.insecure")) {
            cmd.addAll(List.of("--set", "tls.insecure=true"));
        }
        return cmd;
    }

    /**
     * Writes profile {@code name} into the copy's {@code features/profiles/}: profile {@code base}
     * with {@code settings} added to its configurations (PID, then property as a feature file
     * writes it, {@code "client.ttl.ms:Long"}). They reach ConfigurationAdmin before any bundle
     * starts, as the profile's own do, where a file in {@code etc/} could arrive after the
     * component it configures had started with its defaults.
     */
    public void deriveProfile(String name, String base, Map<String, Map<String, Object>> settings) throws IOException {
        Path dir = distribution.resolve("features/profiles");
        ObjectMapper json = new ObjectMapper();
        var profile = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(dir.resolve(base + ".json").toFile());
        profile.put("id", "org.mooncake.osgi:mooncake-profile-" + name + ":osgifeature:0.1.0-SNAPSHOT");
        profile.put("name", "Mooncake profile " + name + " (the fault suite's " + base + ")");
        var configurations = profile.withObjectProperty("configurations");
        settings.forEach((pid, props) -> {
            var c = configurations.withObjectProperty(pid);
            props.forEach((k, v) -> c.set(k, json.valueToTree(v)));
        });
        json.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(name + ".json").toFile(), profile);
    }

    private JsonNode profileVariables(String profile) throws IOException {
        Path p = distribution.resolve("features/profiles/" + profile + ".json");
        JsonNode vars = new ObjectMapper().readTree(p.toFile()).path("variables");
        return vars;
    }

    /**
     * JVM options of every container ({@code MOONCAKE_JAVA_OPTS}) and load worker: the client
     * compiler only. A restart is a new JVM on a machine the load keeps busy, and C2 compiling
     * the framework's start competes with it for the same cores; with C1 alone a storage node on
     * our 2-vCPU VM started in about two thirds of the time. The suite counts outcomes, not speed.
     */
    static final String CONTAINER_JAVA_OPTS = "-XX:TieredStopAtLevel=1";

    /** (Re)starts {@code n}, its output appended to {@code <dir>/<name>.log}. */
    public void start(Node n) throws IOException {
        Path log = dir.resolve(n.name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command(n)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("MOONCAKE_JAVA_OPTS", CONTAINER_JAVA_OPTS);
        n.process = pb.start();
        n.starts++;
    }

    /** Starts a JVM running {@code mainClass} on this JVM's class path, with {@code env} added; not restarted here. */
    public Process java(String name, String mainClass, List<String> args, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                CONTAINER_JAVA_OPTS, "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "-Djava.util.logging.config.file=/dev/null",
                "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        others.add(p);
        return p;
    }

    /** SIGKILL, and waits until the process is gone (its instance lock released). */
    public static void kill9(Process p) throws InterruptedException {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /** Sends {@code signal} (STOP, CONT) to a process. */
    public static void signal(Process p, String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
    }

    public List<Node> nodes(String profile) {
        return nodes.values().stream().filter(n -> n.profile.equals(profile)).toList();
    }

    /** The log of a node or worker, for messages. */
    public String tail(String name) {
        try {
            String s = Files.readString(dir.resolve(name + ".log"));
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "";
        }
    }

    private Path home(String name) {
        try {
            Path h = Files.createDirectories(dir.resolve("homes").resolve(name));
            for (String shared : List.of("lib", "system", "features")) {
                if (!Files.exists(h.resolve(shared))) {
                    Files.createSymbolicLink(h.resolve(shared), distribution.resolve(shared));
                }
            }
            Files.createDirectories(h.resolve("bin"));
            Files.createDirectories(h.resolve("etc"));
            Files.createDirectories(h.resolve("deploy"));
            for (String f : List.of("bin/mooncake", "bin/java-home.sh", "etc/logging.properties")) {
                Files.copy(distribution.resolve(f), h.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            return h;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ends every process: SIGCONT first (a stalled one cannot die of SIGTERM), then SIGTERM, SIGKILL after 15 s. */
    @Override
    public void close() throws InterruptedException {
        List<Process> all = new ArrayList<>(others);
        nodes.values().stream().filter(Node::alive).forEach(n -> all.add(n.process));
        for (Process p : all) {
            if (p.isAlive()) {
                try {
                    signal(p, "CONT");
                } catch (IOException e) {
                    // it is ended below all the same
                }
                p.destroy();
            }
        }
        for (Process p : all) {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                kill9(p);
            }
        }
    }
}
