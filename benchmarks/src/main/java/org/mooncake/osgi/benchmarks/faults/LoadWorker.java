package org.mooncake.osgi.benchmarks.faults;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.mooncake.osgi.benchmarks.faults.OpLog.Op;
import org.mooncake.osgi.benchmarks.faults.OpLog.Outcome;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A client process of the fault suite: a pure client of the master (no segment of its own) that
 * runs a mixed load until it is killed or its stop file appears, and logs every operation to an {@link OpLog}. It is a
 * process of its own, not a thread of the harness, so that a kill -9 of a client mid-put or
 * mid-get is the real thing (sockets reset, a put started at the master and never ended), and so
 * that faketime can move its clock alone. It embeds the same {@link EmbeddedStoreClient} as every
 * client, which is what lets it see each operation's outcome and error code.
 *
 * <p>Load: puts of new keys (4 KiB to 2 MiB, five data types, one or two replicas, through
 * {@code put} and {@code putFrom}), gets of this client's acknowledged keys (through {@code get}
 * and {@code getInto}), each checked against the key's one right value ({@link Payloads}), and
 * removes of its oldest keys past {@code --keep}, so the segments never fill and nothing is evicted.
 *
 * <p>With {@code --shm-dir} it has the shm transport too (its own files in that folder), so that
 * it reaches a storage node's shm segment through the shared file, as a client on the same host does.
 *
 * <pre>LoadWorker --master HOST:PORT --id ID --log FILE [--threads N] [--keep K] [--seed S] [--io-timeout-ms MS] [--stop FILE] [--shm-dir DIR]</pre>
 */
public final class LoadWorker {
    static final int[] SIZES = {4 << 10, 64 << 10, 256 << 10, 1 << 20, 2 << 20};
    /**
     * Puts are a third of the load: a removed object's space stays taken while a read lease on it
     * runs (10 s by default), so the churn of put-and-remove must fit the segments ten times over.
     */
    static final int PUT_PERCENT = 30;
    static final ObjectDataType[] TYPES = {ObjectDataType.KVCACHE, ObjectDataType.TENSOR, ObjectDataType.WEIGHT,
        ObjectDataType.METADATA, ObjectDataType.HIDDEN_STATE};

    private final String id;
    private final EmbeddedStoreClient client;
    private final RemoteMasterService master;
    private final OpLog log;
    private final int keep;
    private final AtomicLong seq = new AtomicLong();
    private final ArrayDeque<String> keys = new ArrayDeque<>();
    private final List<String> readable = new ArrayList<>();

    private final Path stop;

    LoadWorker(String id, EmbeddedStoreClient client, RemoteMasterService master, OpLog log, int keep, Path stop) {
        this.stop = stop;
        this.id = id;
        this.client = client;
        this.master = master;
        this.log = log;
        this.keep = keep;
    }

    public static void main(String[] args) throws Exception {
        String masterAddress = null;
        String id = null;
        Path logFile = null;
        int threads = 2;
        int keep = 40;
        long seed = 1;
        long ioTimeoutMs = 5000;
        Path stop = null;
        String shmDir = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--master" -> masterAddress = v;
                case "--id" -> id = v;
                case "--log" -> logFile = Path.of(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--keep" -> keep = Integer.parseInt(v);
                case "--seed" -> seed = Long.parseLong(v);
                case "--io-timeout-ms" -> ioTimeoutMs = Long.parseLong(v);
                case "--stop" -> stop = Path.of(v);
                case "--shm-dir" -> shmDir = v;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (masterAddress == null || id == null || logFile == null) {
            throw new IllegalArgumentException("LoadWorker needs --master, --id and --log");
        }
        printErrors = true;
        String[] hp = masterAddress.split(":");
        RemoteMasterService master = new RemoteMasterService(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])),
                ioTimeoutMs, 64 << 20);
        TcpTransport net = new TcpTransport(TcpTransport.loopback(4, 1 << 20, ioTimeoutMs));
        List<Transport> transports = shmDir == null ? List.of(net)
                : List.of(net, new ShmTransport(ShmTransport.in(shmDir)));
        EmbeddedStoreClient client = EmbeddedStoreClient.create(master, transports, id, ObjectKey.DEFAULT_TENANT, "tcp",
                InstantSource.system());
        LoadWorker w = new LoadWorker(id, client, master, new OpLog(logFile), keep, stop);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SplittableRandom rnd = new SplittableRandom(seed * 1000 + t);
            running.add(Thread.ofPlatform().name(id + "-load-" + t).start(() -> w.run(rnd)));
        }
        System.out.println("load worker " + id + " running " + threads + " threads");
        for (Thread t : running) {
            t.join();
        }
        System.exit(0); // the transport's and the client's threads would keep the JVM up
    }

    /** Runs operations until the process is killed. */
    void run(SplittableRandom rnd) {
        int max = Arrays.stream(SIZES).max().orElseThrow();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(max, 64);
            client.registerBuffer(buffer);
            while (stop == null || !java.nio.file.Files.exists(stop)) {
                String oldest = nextToRemove();
                if (oldest != null) {
                    remove(oldest);
                } else if (rnd.nextInt(100) < PUT_PERCENT) {
                    put(rnd, buffer);
                } else {
                    String key = pickReadable(rnd);
                    if (key != null) {
                        get(key, rnd.nextBoolean() ? buffer : null);
                    } else {
                        put(rnd, buffer);
                    }
                }
            }
        }
    }

    private synchronized String nextToRemove() {
        if (keys.size() <= keep) {
            return null;
        }
        String k = keys.poll();
        readable.remove(k);
        return k;
    }

    private synchronized String pickReadable(SplittableRandom rnd) {
        return readable.isEmpty() ? null : readable.get(rnd.nextInt(readable.size()));
    }

    private synchronized void acknowledged(String key) {
        keys.add(key);
        readable.add(key);
    }

    void put(SplittableRandom rnd, MemorySegment buffer) {
        int size = SIZES[rnd.nextInt(SIZES.length)];
        ObjectDataType type = TYPES[rnd.nextInt(TYPES.length)];
        long n = seq.incrementAndGet();
        String key = Payloads.key(id, n, size, type);
        byte[] value = Payloads.value(key);
        ReplicateConfig config = ReplicateConfig.builder().replicaCount(1 + rnd.nextInt(2)).dataType(type).build();
        boolean fromBuffer = rnd.nextBoolean();
        if (fromBuffer) {
            MemorySegment.copy(value, 0, buffer, ValueLayout.JAVA_BYTE, 0, size);
        }
        log.begin(id, n, Op.PUT, key);
        try {
            if (fromBuffer) {
                client.putFrom(key, buffer.asSlice(0, size), config);
            } else {
                client.put(key, value, config);
            }
        } catch (RuntimeException e) {
            log.end(id, n, Op.PUT, key, Outcome.FAIL, code(e));
            return;
        }
        log.end(id, n, Op.PUT, key, Outcome.OK, String.format("0x%016x@%s", Payloads.hash(value), segments(key)));
        acknowledged(key);
    }

    /** Where an acknowledged object lives, as the master says; empty when it does not answer. */
    private String segments(String key) {
        try {
            return master.getReplicaList(new ObjectKey(ObjectKey.DEFAULT_TENANT, key)).replicas().stream()
                    .map(ReplicaLocation::segmentName).distinct().collect(Collectors.joining(","));
        } catch (RuntimeException e) {
            return "";
        }
    }

    void get(String key, MemorySegment buffer) {
        long n = seq.incrementAndGet();
        byte[] expected = Payloads.value(key);
        log.begin(id, n, Op.GET, key);
        byte[] got;
        try {
            if (buffer != null) {
                long len = client.getInto(key, buffer);
                got = buffer.asSlice(0, Math.min(len, buffer.byteSize())).toArray(ValueLayout.JAVA_BYTE);
            } else {
                got = client.get(key);
            }
        } catch (RuntimeException e) {
            log.end(id, n, Op.GET, key, Outcome.FAIL, code(e));
            return;
        }
        Outcome o = Arrays.equals(expected, got) ? Outcome.OK : Outcome.MISMATCH;
        log.end(id, n, Op.GET, key, o, String.format("0x%016x", Payloads.hash(got)));
    }

    void remove(String key) {
        long n = seq.incrementAndGet();
        log.begin(id, n, Op.REMOVE, key);
        try {
            client.remove(key, true);
        } catch (RuntimeException e) {
            log.end(id, n, Op.REMOVE, key, Outcome.FAIL, code(e));
            return;
        }
        log.end(id, n, Op.REMOVE, key, Outcome.OK, "-");
    }

    private static volatile boolean printErrors;
    private static final java.util.Map<String, Integer> SAID = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A store error's code; any other exception by its class, so that the table shows it apart.
     * The first three of each code are printed with their message, to the client's own log.
     */
    static String code(RuntimeException e) {
        String code = e instanceof StoreException se ? se.errorCode().name() : "EXCEPTION:" + e.getClass().getSimpleName();
        if (printErrors && SAID.merge(code, 1, Integer::sum) <= 3) {
            System.out.println(code + ": " + e);
        }
        return code;
    }
}
