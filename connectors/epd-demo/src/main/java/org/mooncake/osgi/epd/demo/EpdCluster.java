package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;


/**
 * The demo's processes on loopback, each a {@code bin/mooncake start --profile ... --headless}
 * of the distribution with its own instance name ({@code epd-demo-RUN-ROLE}, RUN unique per
 * run) and ports picked free. They are all started at once (workers and the storage node retry
 * until the master answers) and then awaited one by one; the proxy last, until it has probed
 * every worker healthy.
 */
public final class EpdCluster implements Endpoints {
    /** Heaps small enough for seven JVMs on a laptop; the workers keep C2, which the model's loops need. */
    static final String WORKER_JAVA_OPTS = "-Xms64m -Xmx384m -XX:+UseSerialGC";
    /** The master and the proxy compute nothing: C1 only spares the two cores its compile time. */
    static final String LIGHT_JAVA_OPTS = "-Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    /**
     * What to start: {@code extraVars} adds variables per role (the IT shortens the master's client
     * ttl); {@code javaOpts} null picks the defaults above.
     */
    public record Spec(Path home, Path logs, String runId, String models, Set<Role> roles, String javaOpts,
            Duration startTimeout, Map<Role, Map<String, String>> extraVars) {
        public Spec {
            roles = roles.isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(roles);
            extraVars = Map.copyOf(extraVars);
        }
    }

    private final Spec spec;
    private final Map<Role, ManagedProcess> processes = new EnumMap<>(Role.class);
    private final Map<Role, String> urls = new EnumMap<>(Role.class);
    private final Map<Role, String> instances = new EnumMap<>(Role.class);
    private final Map<Role, Map<String, String>> vars = new EnumMap<>(Role.class);
    /** Every instance started, relaunches included, with its process: whose runtime folders to delete. */
    private final Map<String, ManagedProcess> launched = new LinkedHashMap<>();

    private EpdCluster(Spec spec) {
        this.spec = spec;
    }

    /** The roles of each mode: the EPD path needs the store; the aggregated worker uses none. */
    public static Set<Role> roles(DemoOptions.Mode mode) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        if (mode.epd()) {
            roles.addAll(EnumSet.of(Role.MASTER, Role.STORAGE, Role.ENCODER, Role.PREFILL, Role.DECODE, Role.PROXY));
        }
        if (mode.aggregated()) {
            roles.add(Role.AGGREGATED);
        }
        return roles;
    }

    /** A cluster of the spec, not started yet: its ports and instance names are picked. */
    public static EpdCluster plan(Spec spec) throws IOException {
        EpdCluster c = new EpdCluster(spec);
        c.vars.putAll(c.plan());
        return c;
    }

    /** {@link #plan} and {@link #start(Supervisor, DemoHttp)} in one. */
    public static EpdCluster start(Spec spec, Supervisor supervisor, DemoHttp http) throws IOException,
            InterruptedException {
        EpdCluster c = plan(spec);
        c.start(supervisor, http);
        return c;
    }

    /**
     * Starts every role of the spec and waits until each is healthy; once the supervisor has
     * stopped them, their runtime folders are deleted.
     *
     * @throws ManagedProcess.StartupFailure naming the process that did not come up, with its log's tail
     */
    public void start(Supervisor supervisor, DemoHttp http) throws IOException, InterruptedException {
        supervisor.afterStop(this::deleteRuntimeFoldersOrSay);
        for (Role role : spec.roles()) {
            launch(role, vars.get(role), supervisor);
        }
        for (Role role : spec.roles()) {
            if (role != Role.PROXY) {
                processes.get(role).awaitHealthy(http, spec.startTimeout());
            }
        }
        // the proxy's probes must succeed after this moment (see ProxyReadiness)
        java.time.Instant workersUp = java.time.Instant.now();
        if (spec.roles().contains(Role.PROXY)) {
            processes.get(Role.PROXY).awaitHealthy(http, spec.startTimeout());
            int instances = (int) spec.roles().stream()
                    .filter(r -> r == Role.ENCODER || r == Role.PREFILL || r == Role.DECODE).count();
            ProxyReadiness.await(http, urls.get(Role.PROXY), processes.get(Role.PROXY), instances, workersUp,
                    spec.startTimeout());
        }
    }

    /** Ports and variables of every role; a variable the role's profile does not take is left out. */
    private Map<Role, Map<String, String>> plan() throws IOException {
        Set<Role> roles = spec.roles();
        List<Integer> ports = FreePorts.pick(Role.values().length + 1);
        int rpc = ports.getLast();
        String master = "127.0.0.1:" + rpc;
        for (Role r : Role.values()) {
            urls.put(r, "http://127.0.0.1:" + ports.get(r.ordinal()));
            instances.put(r, instanceName(r));
        }
        Map<Role, Map<String, String>> vars = new EnumMap<>(Role.class);
        for (Role r : roles) {
            int port = ports.get(r.ordinal());
            Map<String, String> v = new LinkedHashMap<>();
            switch (r) {
                case MASTER -> {
                    v.put("rpc.port", Integer.toString(rpc));
                    v.put("admin.port", Integer.toString(port));
                }
                case STORAGE -> {
                    v.put("master", master);
                    v.put("admin.port", Integer.toString(port));
                }
                case PROXY -> {
                    v.put("http.port", Integer.toString(port));
                    v.put("encoders", urlOf(Role.ENCODER, roles));
                    v.put("prefills", urlOf(Role.PREFILL, roles));
                    v.put("decodes", urlOf(Role.DECODE, roles));
                    // a worker that was still starting when first probed is routed to again within a second
                    v.put("probe.interval.ms", "1000");
                }
                default -> {
                    v.put("master", master);
                    v.put("http.port", Integer.toString(port));
                    v.put("models", spec.models());
                }
            }
            // every process of the demo is on this machine's loopback: no certificates to make first
            v.put("tls.insecure", "true");
            v.putAll(spec.extraVars().getOrDefault(r, Map.of()));
            vars.put(r, declaredOnly(r, v));
        }
        return vars;
    }

    private String instanceName(Role r) {
        return "epd-demo-" + spec.runId() + "-" + r.id();
    }

    private String urlOf(Role r, Set<Role> roles) {
        return roles.contains(r) ? urls.get(r) : "";
    }

    /** Keeps the variables the profile takes; fails for a port or address it lacks, which it cannot run without. */
    private Map<String, String> declaredOnly(Role r, Map<String, String> v) throws IOException {
        Set<String> declared = ProfileVars.of(spec.home(), r.profile());
        Map<String, String> out = new LinkedHashMap<>();
        v.forEach((name, value) -> {
            if (declared.contains(name)) {
                out.put(name, value);
            } else if (name.endsWith("port") || name.equals("encoders") || name.equals("prefills")
                    || name.equals("decodes") || name.equals("models")) {
                throw new IllegalStateException("profile " + r.profile() + " takes no variable " + name + " (it takes "
                        + declared + "); the demo cannot run " + r.description() + " without it");
            }
        });
        return out;
    }

    private void launch(Role role, Map<String, String> vars, Supervisor supervisor) throws IOException {
        launch(role, vars, supervisor, role.id());
    }

    private void launch(Role role, Map<String, String> vars, Supervisor supervisor, String name) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", spec.home().resolve("bin/mooncake").toString(), "start",
                "--profile", role.profile(), "--headless", "--instance", instances.get(role)));
        vars.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
        String opts = spec.javaOpts() != null ? spec.javaOpts()
                : role == Role.MASTER || role == Role.PROXY ? LIGHT_JAVA_OPTS : WORKER_JAVA_OPTS;
        ManagedProcess p = supervisor.start(name, cmd, Map.of("MOONCAKE_JAVA_OPTS", opts), spec.logs(),
                urls.get(role) + "/health");
        processes.put(role, p);
        launched.put(instances.get(role), p);
    }

    /**
     * Starts a new process for a role whose process died (a test killed it) and waits until it is
     * healthy: a new instance name, the same variables, except that a master or storage node gets
     * a new admin port (the old one may linger); a worker keeps its HTTP port, which the proxy knows.
     */
    public ManagedProcess relaunch(Role role, Supervisor supervisor, DemoHttp http) throws IOException,
            InterruptedException {
        ManagedProcess old = processes.get(role);
        if (old != null && old.isAlive()) {
            throw new IllegalStateException(role.description() + " is still running (pid " + old.pid() + ")");
        }
        Map<String, String> v = new LinkedHashMap<>(vars.get(role));
        if (v.containsKey("admin.port")) {
            int port = FreePorts.pick(1).getFirst();
            v.put("admin.port", Integer.toString(port));
            urls.put(role, "http://127.0.0.1:" + port);
        }
        vars.put(role, v);
        int generation = 2;
        while (launched.containsKey(instanceName(role) + "-" + generation)) {
            generation++;
        }
        instances.put(role, instanceName(role) + "-" + generation);
        launch(role, v, supervisor, role.id() + "-" + generation);
        processes.get(role).awaitHealthy(http, spec.startTimeout());
        return processes.get(role);
    }

    @Override
    public Set<Role> roles() {
        return spec.roles();
    }

    /** Base URL of a role: its HTTP port (admin port for the master and the storage node). */
    @Override
    public String url(Role role) {
        return urls.get(role);
    }

    public String instance(Role role) {
        return instances.get(role);
    }

    /** The role's process; null before it was launched. */
    public ManagedProcess process(Role role) {
        return processes.get(role);
    }

    @Override
    public boolean alive(Role role) {
        ManagedProcess p = processes.get(role);
        return p != null && p.isAlive();
    }

    private void deleteRuntimeFoldersOrSay() {
        try {
            deleteRuntimeFolders();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot delete the framework caches under "
                    + spec.home().resolve("runtime"), e);
        }
    }

    /** Deletes the instances' folders under {@code runtime/} (framework caches) once their processes are gone. */
    public void deleteRuntimeFolders() throws IOException {
        for (var e : launched.entrySet()) {
            if (e.getValue().isAlive()) {
                continue;
            }
            Path dir = spec.home().resolve("runtime").resolve(e.getKey());
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(f);
                    }
                }
            }
        }
    }
}
