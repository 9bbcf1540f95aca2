package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.mooncake.osgi.benchmarks.BenchArgs;
import org.mooncake.osgi.benchmarks.Progress;
import org.mooncake.osgi.benchmarks.faults.Cluster.Node;
import org.mooncake.osgi.benchmarks.faults.OpLog.Op;
import org.mooncake.osgi.benchmarks.faults.OpLog.Outcome;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * {@code mooncake bench faults}: a cluster of real processes on loopback (a master, storage
 * nodes, client processes running {@link LoadWorker}) under a mixed load, and faults injected
 * one after another at random moments. After each fault the harness, a client of its own, puts
 * and gets until both succeed again (the time to recover) and heals the cluster (restarts what
 * was killed). At the end every object any client tried to put is read once more, and the
 * {@link Reconciler} adds up the clients' logs against the faults.
 */
public final class FaultSuite {
    static final String USAGE = """
            usage: mooncake bench faults [--faults N] [--kinds a,b,...] [--seed S] [--out DIR] [--soak MINUTES]
                                         [--storage N] [--clients N]
              --faults N       faults to inject (default 100); with --soak, the soak's length decides instead
              --kinds a,b      kinds to inject, each once per round in a random order (default: all):
                               %s
              --seed S         the random choices of kinds, moments and targets (default 1)
              --out DIR        where faults.json, faults.txt, faults.png and the cluster's logs go (default fault-out)
              --soak MINUTES   load with faults for this long, reporting heap and file descriptors per process at
                               start and end and p99 latency per minute
              --storage N      storage nodes (default 3);  --clients N   client processes (default 2)
            clock-jump needs faketime (apt-get install faketime); the distribution must be built.""".formatted(FaultKind.ids());
    /** Per storage node: room for the live objects and for ten seconds of removed ones still under a read lease. */
    static final long SEGMENT_BYTES = 512L << 20;
    static final Path FAKETIME_LIB = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    /** The shm storage node's segment (full-shm-tmpfs), and its tmpfs: the segment file and 8 MiB more. */
    static final long SHM_SEGMENT_BYTES = 128L << 20;
    static final long SHM_TMPFS_BYTES = SHM_SEGMENT_BYTES + (8L << 20);

    /** A run's settings. */
    public record Options(int faults, List<FaultKind> kinds, long seed, Path out, double soakMinutes, int storage,
            int clients, Path distribution) {
    }

    static Options parse(String[] args, Path distribution) {
        BenchArgs.helpIfAsked(args, USAGE);
        int faults = 100;
        List<FaultKind> kinds = List.of(FaultKind.values());
        long seed = 1;
        Path out = Path.of("fault-out");
        double soak = 0;
        int storage = 3;
        int clients = 2;
        for (int i = 0; i < args.length; i += 2) {
            String v = BenchArgs.valueOf(args, i);
            switch (args[i]) {
                case "--faults" -> faults = BenchArgs.wholeNumber("--faults", v, 1, 1_000_000);
                case "--kinds" -> kinds = FaultKind.parse("--kinds", v);
                case "--seed" -> seed = BenchArgs.wholeNumber("--seed", v, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--out" -> out = Path.of(v);
                case "--soak" -> soak = BenchArgs.number("--soak", v, 0, 24 * 60);
                case "--storage" -> storage = BenchArgs.wholeNumber("--storage", v, 1, 16);
                case "--clients" -> clients = BenchArgs.wholeNumber("--clients", v, 1, 16);
                case "--distribution" -> distribution = Path.of(v);
                default -> throw new BenchArgs.Mistake("unknown option " + args[i] + "\n" + USAGE);
            }
        }
        return new Options(faults, kinds, seed, out, soak, storage, clients, distribution);
    }

    public static void main(String[] args) throws Exception {
        FaultRun run;
        if (args.length == 2 && args[0].equals("--reconcile")) {
            run = reconcileAgain(Path.of(args[1]));
        } else {
            Options o = BenchArgs.orExit("bench faults", () -> parse(args, Path.of("distribution/target/mooncake")));
            run = new FaultSuite(o).run();
        }
        System.out.println(FaultTable.text(run));
        System.exit(run.notes().stream().noneMatch(n -> n.startsWith("stopped")) && run.report().reconciles()
                && run.report().corrupt() == 0 && run.report().halfVisible() == 0
                && run.report().lost() == 0 ? 0 : 1);
    }

    /**
     * {@code --reconcile DIR}: adds up again the logs and faults of a finished run in {@code DIR}
     * (its {@code --out}) and rewrites its table, JSON and chart, for a reconciler that changed.
     */
    static FaultRun reconcileAgain(Path out) throws IOException {
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("faults.json").toFile());
        List<Fault> faults = new ArrayList<>();
        for (var f : json.get("faults")) {
            List<String> dropped = new ArrayList<>();
            f.get("segmentsDropped").forEach(d -> dropped.add(d.asText()));
            faults.add(new Fault(f.get("kind").asText(), f.get("target").asText(), f.get("injectedNanos").asLong(),
                    f.get("recoveredNanos").asLong(), dropped, f.get("forgetsObjects").asBoolean()));
        }
        List<Path> logs;
        try (var files = Files.list(out.resolve("cluster"))) {
            logs = files.filter(p -> p.getFileName().toString().startsWith("ops-")).sorted().toList();
        }
        List<OpLog.Entry> entries = OpLog.read(logs);
        var opts = json.get("options");
        Options o = new Options(faults.size(), List.of(), Long.parseLong(option(opts, "seed")), out,
                Double.parseDouble(option(opts, "soakMinutes")), Integer.parseInt(option(opts, "storage")),
                Integer.parseInt(option(opts, "clients")), Path.of(option(opts, "distribution")));
        List<String> notes = new ArrayList<>();
        json.get("notes").forEach(n -> notes.add(n.asText()));
        long start = entries.stream().mapToLong(OpLog.Entry::startNanos).min().orElse(0);
        FaultRun run = new FaultRun(o, Reconciler.reconcile(entries, faults), faults, notes,
                Soak.perMinuteP99(entries, start), List.of(), json.get("seconds").asDouble());
        FaultTable.write(run, out);
        return run;
    }

    private static String option(com.fasterxml.jackson.databind.JsonNode opts, String name) throws IOException {
        if (opts == null || !opts.has(name)) {
            throw new IOException("the run's faults.json names no option " + name);
        }
        return opts.get(name).asText();
    }

    private final Options o;
    private final Random rnd;
    private final Map<String, String> clientIdOf = new HashMap<>();
    private final Map<String, Set<String>> segmentsOf = new HashMap<>();
    private final List<Fault> faults = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private Cluster cluster;
    private Node master;
    private RemoteMasterService masterRpc;
    private EmbeddedStoreClient harness;
    private OpLog probeLog;
    private long probeSeq;
    private long evictionsBefore; // by masters that have since been killed
    private Workers workers;
    /** Storage nodes restarted after a kill whose new segment has not been seen mounted yet. */
    private final Set<Node> restarting = new java.util.LinkedHashSet<>();
    private SmallTmpfs tmpfs;
    private Node shmNode;

    public FaultSuite(Options o) {
        this.o = o;
        this.rnd = new Random(o.seed());
    }

    public FaultRun run() throws Exception {
        Path out = Files.createDirectories(o.out());
        List<FaultKind> kinds = new ArrayList<>(o.kinds());
        if (kinds.contains(FaultKind.CLOCK_JUMP) && !Files.exists(FAKETIME_LIB)) {
            kinds.remove(FaultKind.CLOCK_JUMP);
            notes.add("clock-jump skipped: faketime is not installed (apt-get install faketime)");
        }
        long started = System.nanoTime();
        deleteTree(out.resolve("cluster")); // a previous run's logs would be added up with this one's
        cluster = new Cluster(o.distribution(), out.resolve("cluster"));
        if (kinds.contains(FaultKind.FULL_SHM_TMPFS)) {
            try {
                tmpfs = SmallTmpfs.mount(cluster.dir().resolve("shm-tmpfs"), SHM_TMPFS_BYTES);
            } catch (IOException e) {
                kinds.remove(FaultKind.FULL_SHM_TMPFS);
                notes.add("full-shm-tmpfs skipped: cannot mount a small tmpfs here (it needs root): " + e.getMessage());
            }
        }
        if (kinds.isEmpty()) {
            throw new BenchArgs.Mistake("no fault kind left to inject");
        }
        Path shmPeers = tmpfs == null ? null : Files.createDirectories(cluster.dir().resolve("shm-peers"));
        try (TcpTransport net = new TcpTransport(TcpTransport.loopback(4, 1 << 20, 5000));
                ShmTransport shm = shmPeers == null ? null : new ShmTransport(ShmTransport.in(shmPeers.toString()))) {
            int rpc = Cluster.freePort();
            // every container starts at once (a storage node mounts once its master answers)
            master = cluster.container("fault-master", "master", List.of("rpc.port=" + rpc, "bind=127.0.0.1",
                    "admin.port=0"));
            List<Node> storage = new ArrayList<>();
            for (int i = 0; i < o.storage(); i++) {
                storage.add(cluster.container("fault-storage-" + i, "storage", List.of("master=127.0.0.1:" + rpc,
                        "segment.size=" + SEGMENT_BYTES, "admin.port=0")));
            }
            if (tmpfs != null) {
                // its segment is a file on the small tmpfs, reached over shm by the clients and the harness
                cluster.deriveProfile("storage-shm", "storage", Map.of(ShmTransport.PID,
                        Map.of("directory", tmpfs.dir().toString())));
                shmNode = cluster.container("fault-storage-shm", "storage-shm", List.of("master=127.0.0.1:" + rpc,
                        "segment.size=" + SHM_SEGMENT_BYTES, "transport=shm", "admin.port=0"));
                storage.add(shmNode);
            }
            masterRpc = new RemoteMasterService(new InetSocketAddress("127.0.0.1", rpc), 3000, 64 << 20);
            await("the master", 300, () -> masterRpc.stats() != null);
            storage.forEach(this::learnSegment);
            harness = EmbeddedStoreClient.create(masterRpc, shm == null ? List.of(net) : List.of(net, shm),
                    "fault-harness", ObjectKey.DEFAULT_TENANT, "tcp", InstantSource.system());
            probeLog = new OpLog(cluster.dir().resolve("ops-probe.log"));
            workers = new Workers(cluster, "127.0.0.1:" + rpc, o.clients(), o.seed(),
                    kinds.contains(FaultKind.CLOCK_JUMP), shmPeers);
            workers.startAll();
            await("the clients' first operations", 120, workers::allLogged);
            Resources before = o.soakMinutes() > 0 ? Resources.sample(processes()) : null;
            long loopStart = System.nanoTime();
            long soakEnd = o.soakMinutes() > 0 ? loopStart + (long) (o.soakMinutes() * 60e9) : Long.MAX_VALUE;
            long total = o.soakMinutes() > 0 ? Math.round(o.soakMinutes() * 60) : o.faults();
            try (Progress progress = Progress.start("bench faults", total)) {
                notes.forEach(progress::note);
                long stepped = 0;
                List<FaultKind> deck = new ArrayList<>();
                while (o.soakMinutes() > 0 ? System.nanoTime() < soakEnd : faults.size() < o.faults()) {
                    Thread.sleep(100 + rnd.nextInt(500)); // the load runs a random while between faults
                    if (deck.isEmpty()) { // every kind once per round, in a random order
                        deck.addAll(kinds);
                        java.util.Collections.shuffle(deck, rnd);
                    }
                    FaultKind kind = deck.removeFirst();
                    Fault f;
                    try {
                        f = inject(kind);
                    } catch (Exception | AssertionError e) {
                        // the cluster could not be healed: report what was done so far, and fail
                        notes.add("stopped after " + faults.size() + " faults: " + kind.id() + " failed: " + e);
                        progress.note("stopped: " + kind.id() + " failed: " + e);
                        break;
                    }
                    faults.add(f);
                    String said = kind.id() + " of " + f.target() + (f.recoveredNanos() < 0 ? ": not recovered"
                            : ": recovered in " + (f.recoveredNanos() - f.injectedNanos()) / 1_000_000 + " ms");
                    if (o.soakMinutes() > 0) {
                        long secs = (System.nanoTime() - loopStart) / 1_000_000_000L;
                        progress.step(Math.max(0, Math.min(total, secs) - stepped));
                        stepped = Math.min(total, secs);
                    } else {
                        progress.step(said);
                    }
                }
            }
            healStorage(); // a node still starting would be sampled, and swept, half up
            Resources after = o.soakMinutes() > 0 ? Resources.sample(processes()) : null;
            long evicted = evictionsBefore + evictions();
            if (evicted > 0) {
                notes.add("the master evicted " + evicted + " objects: a 'lost' object may have been evicted; give the"
                        + " segments more room (each removed object's space stays taken while a read lease runs)");
            }
            workers.stopAll();
            sweep();
            List<Path> logs = new ArrayList<>(workers.logs());
            logs.add(cluster.dir().resolve("ops-probe.log"));
            logs.add(cluster.dir().resolve("ops-sweep.log"));
            List<OpLog.Entry> entries = OpLog.read(logs);
            FaultReport report = Reconciler.reconcile(entries, faults);
            FaultRun run = new FaultRun(o, report, faults, notes, Soak.perMinuteP99(entries, started),
                    o.soakMinutes() > 0 ? Resources.compare(before, after) : List.of(),
                    (System.nanoTime() - started) / 1_000_000_000.0);
            FaultTable.write(run, out);
            return run;
        } finally {
            if (masterRpc != null) {
                masterRpc.close();
            }
            cluster.close();
            if (tmpfs != null) {
                tmpfs.close();
            }
        }
    }

    /** Deletes {@code dir} and what is in it; links are deleted, not followed. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private Map<String, Process> processes() {
        Map<String, Process> m = new java.util.LinkedHashMap<>();
        m.put(master.name(), master.process);
        segmentNodes().forEach(n -> m.put(n.name(), n.process));
        m.putAll(workers.processes());
        return m;
    }

    /** Waits until the node's new segment is mounted at the master, and notes whose it is. */
    private void learnSegment(Node n) {
        // the local transport's endpoint names the process (local://pid:PID@host): which segment is
        // whose does not depend on the order in which nodes that start together mount
        String local = "local://pid:" + n.pid() + "@";
        await(n.name() + "'s segment mounted", 300, () -> {
            for (SegmentStats s : masterRpc.segments()) {
                segmentsOf.computeIfAbsent(s.clientId(), k -> new HashSet<>()).add(s.name());
                if (s.endpoints().stream().anyMatch(e -> e.startsWith(local))) {
                    clientIdOf.put(n.name(), s.clientId());
                    return true;
                }
            }
            return false;
        });
    }

    /** The tcp endpoint ({@code tcp://host:port}) the master lists for {@code n}'s segment; null if none or no answer. */
    private String tcpEndpoint(Node n) {
        String id = clientIdOf.get(n.name());
        try {
            return masterRpc.segments().stream().filter(s -> s.clientId().equals(id))
                    .flatMap(s -> s.endpoints().stream()).filter(e -> e.startsWith("tcp://")).findFirst().orElse(null);
        } catch (RuntimeException masterDown) {
            return null;
        }
    }

    /** Objects evicted by the running master so far; 0 if it does not answer. */
    private long evictions() {
        try {
            return masterRpc.stats().types().stream().mapToLong(t -> t.evictions()).sum();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** Every segment name {@code n} has had at the master, including its current ones if the master answers. */
    private List<String> segmentsOf(Node n) {
        String id = clientIdOf.get(n.name());
        try {
            masterRpc.segments().forEach(s -> segmentsOf.computeIfAbsent(s.clientId(), k -> new HashSet<>()).add(s.name()));
        } catch (RuntimeException masterDown) {
            // the names seen before are all there is
        }
        return List.copyOf(segmentsOf.getOrDefault(id, Set.of()));
    }

    /** The nodes that contribute a segment: the tcp storage nodes, and the shm one where there is one. */
    private List<Node> segmentNodes() {
        List<Node> all = new ArrayList<>(cluster.nodes("storage"));
        if (shmNode != null) {
            all.add(shmNode);
        }
        return all;
    }

    /**
     * Waits until every storage node restarted after a kill has its new segment mounted. A
     * restart runs while the faults that do not need every node go on (a JVM's start is most of
     * a storage kill's time); a fault that picks a node or counts them waits for it here.
     */
    private void healStorage() {
        for (Node n : restarting) {
            learnSegment(n);
        }
        restarting.clear();
    }

    private Fault inject(FaultKind kind) throws Exception {
        List<Node> storage = cluster.nodes("storage");
        if (kind.needsEveryNode()) {
            healStorage();
        }
        switch (kind) {
            case STORAGE_KILL -> {
                Node n = storage.get(rnd.nextInt(storage.size()));
                List<String> segments = segmentsOf(n);
                long t = System.nanoTime();
                Cluster.kill9(n.process);
                Fault f = recover(new Fault(kind.id(), n.name(), t, -1, segments, false));
                clientIdOf.remove(n.name());
                TransportSwap.undeploy(n); // it starts with the distribution's transport, as a new node would
                cluster.start(n);
                restarting.add(n);
                return f;
            }
            case CLIENT_KILL_PUT, CLIENT_KILL_GET -> {
                Op op = kind == FaultKind.CLIENT_KILL_PUT ? Op.PUT : Op.GET;
                int slot = workers.pickRunning(rnd);
                String id = workers.id(slot);
                long t = workers.killWhile(slot, op);
                Fault f = recover(new Fault(kind.id(), id, t, -1, List.of(), false));
                workers.restart(slot);
                return f;
            }
            case MASTER_RESTART -> {
                evictionsBefore += evictions();
                long t = System.nanoTime();
                Cluster.kill9(master.process);
                cluster.start(master);
                Fault f = recover(new Fault(kind.id(), master.name(), t, -1, List.of(), true));
                int nodes = segmentNodes().size();
                await("every storage node mounted again", 300, () -> masterRpc.segments().stream()
                        .map(SegmentStats::clientId).distinct().filter(clientIdOf::containsValue).count() == nodes);
                return f;
            }
            case STORAGE_STALL -> {
                Node n = storage.get(rnd.nextInt(storage.size()));
                long t = System.nanoTime();
                Cluster.signal(n.process, "STOP");
                return during(500 + rnd.nextInt(2500), () -> Cluster.signal(n.process, "CONT"),
                        new Fault(kind.id(), n.name(), t, -1, List.of(), false));
            }
            case POLICY_SWAP -> {
                Path jar = policyJar();
                Path dropped = master.deploy().resolve(jar.getFileName());
                long t = System.nanoTime();
                Files.copy(jar, dropped);
                // FileInstall polls every 250 ms: the policy comes and goes within the hold
                return during(1000 + rnd.nextInt(2000), () -> Files.delete(dropped),
                        new Fault(kind.id(), master.name() + ":" + jar.getFileName(), t, -1, List.of(), false));
            }
            case CLOCK_JUMP -> {
                long secs = (rnd.nextBoolean() ? 1 : -1) * (30 + rnd.nextInt(3600));
                workers.awaitRunning(0); // a client started to replace a killed one jumps once it runs
                long t = System.nanoTime();
                workers.jumpClock(secs);
                Fault f = during(1000 + rnd.nextInt(2000), () -> workers.jumpClock(0),
                        new Fault(kind.id(), workers.id(0) + (secs > 0 ? ":+" : ":") + secs + "s", t, -1, List.of(), false));
                // the jumped client recovers when it succeeds again, not the harness (whose clock is right)
                long back = workers.firstSuccessSince(0, t, TimeUnit.SECONDS.toNanos(60));
                return new Fault(f.kind(), f.target(), t, back, List.of(), false);
            }
            case FULL_SHM_TMPFS -> {
                long t = System.nanoTime();
                long filled = tmpfs.fill();
                Fault f = during(500 + rnd.nextInt(2500), tmpfs::free,
                        new Fault(kind.id(), shmNode.name() + ":" + (filled >> 10) + "KiB", t, -1, List.of(), false));
                if (!shmNode.alive()) {
                    throw new IllegalStateException("the shm storage node ended while its tmpfs was full: "
                            + cluster.tail(shmNode.name()));
                }
                return f;
            }
            case TRANSPORT_SWAP -> {
                Node n = storage.get(rnd.nextInt(storage.size()));
                TransportSwap swap = new TransportSwap(cluster, n, () -> tcpEndpoint(n));
                long t = System.nanoTime();
                swap.start();
                Fault f = recover(new Fault(kind.id(), n.name(), t, -1, List.of(), false));
                long swapped = swap.awaitServing(TimeUnit.SECONDS.toNanos(90));
                return f.recoveredNanos() < 0 ? f : f.recovered(Math.max(f.recoveredNanos(), swapped));
            }
            default -> throw new IllegalStateException(kind.id());
        }
    }

    /** An undo step of a fault that lasts a while. */
    @FunctionalInterface
    interface Undo {
        void run() throws Exception;
    }

    /**
     * A fault that lasts {@code holdMs}: the harness probes for recovery while it lasts (a stall
     * of one node should not stop the others serving), then it is undone, and the harness waits
     * for recovery if it had not come yet.
     */
    private Fault during(long holdMs, Undo undo, Fault f) throws Exception {
        var undone = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(holdMs);
                undo.run();
            } catch (Exception e) {
                throw new IllegalStateException("could not undo " + f.kind() + " of " + f.target(), e);
            }
        });
        Fault recovered = recover(f);
        undone.get();
        return recovered.recoveredNanos() >= 0 ? recovered : recover(f);
    }

    private Path policyJar() throws IOException {
        String[] names = {"policy-type-aware", "policy-cost-aware", "policy-hierarchical"};
        String name = names[rnd.nextInt(names.length)];
        Path dir = cluster.distribution().resolve("system/org/mooncake/osgi").resolve(name);
        try (var versions = Files.walk(dir)) {
            return versions.filter(p -> p.toString().endsWith(".jar")).findFirst()
                    .orElseThrow(() -> new IOException("no " + name + " jar under " + dir));
        }
    }

    /** Puts and gets through the harness until both succeed: the fault with its recovery time (or none in 90 s). */
    private Fault recover(Fault f) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (probe()) {
                return f.recovered(System.nanoTime());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return f;
            }
        }
        return f;
    }

    /** One put, get and remove of a fresh 64 KiB object through the harness's client, logged like the load's. */
    private boolean probe() {
        long n = ++probeSeq;
        String key = Payloads.key("probe", n, 64 << 10, ObjectDataType.KVCACHE);
        byte[] value = Payloads.value(key);
        probeLog.begin("probe", n * 3, Op.PUT, key);
        try {
            harness.put(key, value, ReplicateConfig.DEFAULT);
        } catch (RuntimeException e) {
            probeLog.end("probe", n * 3, Op.PUT, key, Outcome.FAIL, LoadWorker.code(e));
            return false;
        }
        probeLog.end("probe", n * 3, Op.PUT, key, Outcome.OK, String.format("0x%016x@", Payloads.hash(value)));
        probeLog.begin("probe", n * 3 + 1, Op.GET, key);
        byte[] got;
        try {
            got = harness.get(key);
        } catch (RuntimeException e) {
            probeLog.end("probe", n * 3 + 1, Op.GET, key, Outcome.FAIL, LoadWorker.code(e));
            return false;
        }
        boolean whole = Arrays.equals(value, got);
        probeLog.end("probe", n * 3 + 1, Op.GET, key, whole ? Outcome.OK : Outcome.MISMATCH,
                String.format("0x%016x", Payloads.hash(got)));
        probeLog.begin("probe", n * 3 + 2, Op.REMOVE, key);
        try {
            harness.remove(key, true);
            probeLog.end("probe", n * 3 + 2, Op.REMOVE, key, Outcome.OK, "-");
        } catch (RuntimeException e) {
            probeLog.end("probe", n * 3 + 2, Op.REMOVE, key, Outcome.FAIL, LoadWorker.code(e));
        }
        return whole;
    }

    /** Reads once more every object a client tried to put and did not remove: whole, missing, or other bytes. */
    private void sweep() throws IOException {
        List<OpLog.Entry> entries = OpLog.read(workers.logs());
        Set<String> removed = new HashSet<>();
        entries.stream().filter(e -> e.op() == Op.REMOVE).forEach(e -> removed.add(e.key()));
        try (OpLog log = new OpLog(cluster.dir().resolve("ops-sweep.log"))) {
            long n = 0;
            for (OpLog.Entry e : entries) {
                if (e.op() != Op.PUT || removed.contains(e.key())) {
                    continue;
                }
                n++;
                log.begin("sweep", n, Op.CHECK, e.key());
                try {
                    byte[] got = harness.get(e.key());
                    boolean whole = Arrays.equals(Payloads.value(e.key()), got);
                    log.end("sweep", n, Op.CHECK, e.key(), whole ? Outcome.OK : Outcome.MISMATCH,
                            String.format("0x%016x", Payloads.hash(got)));
                } catch (RuntimeException ex) {
                    log.end("sweep", n, Op.CHECK, e.key(), Outcome.FAIL, LoadWorker.code(ex));
                }
            }
        }
    }

    static void await(String what, int seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                last = notYet;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + what, e);
            }
        }
        throw new IllegalStateException("timed out waiting for " + what + ": "  + seconds + " s" + (last != null ? " (" + last + ")" : ""));
    }
}
