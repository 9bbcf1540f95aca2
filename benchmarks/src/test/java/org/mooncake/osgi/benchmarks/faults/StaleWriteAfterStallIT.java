package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.benchmarks.faults.Cluster.Node;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A WRITE that reaches a storage node after its put was given up must not land on the object
 * that got the range next. The fault suite's soak once read an acknowledged object that failed
 * its checksum: its node had been stopped (SIGSTOP) a few seconds before. A client's WRITE to the
 * stopped node timed out, the client revoked the put, the master handed the range to the next
 * put, and when the node resumed it applied the stale WRITE still queued on its socket over the
 * new object. This drives that sequence with real processes: a master and one storage node
 * whose segment holds one object, so that the second put must land where the first was to go.
 * Each round: SIGSTOP the node; put A times out (client A, 1 s I/O timeout); put B of the same
 * size (client B, 15 s) is allocated the range and its WRITE queues behind A's on the node's
 * sockets; SIGCONT; once the node has read every queued byte, B must read back whole.
 *
 * <p>The master's put discard timeout (the life of a WRITE grant) is 1.5 s here, so that the
 * range comes back within the round; its read lease 300 ms, so that a removed object's space
 * does too.
 */
class StaleWriteAfterStallIT {
    static final int OBJECT_BYTES = 1536 << 10;
    static final long SEGMENT_BYTES = 2L << 20;
    static final int ROUNDS = 3;

    private Cluster cluster;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aWriteGivenUpWhileItsNodeWasStoppedNeverLandsOnTheNextObjectInItsRange() throws Exception {
        Path distribution = Path.of(System.getProperty("mooncake.distribution", "../distribution/target/mooncake"));
        Path dir = Path.of("target", "stale-write-it").toAbsolutePath();
        FaultSuite.deleteTree(dir);
        cluster = new Cluster(distribution, dir);
        cluster.deriveProfile("master-short-grants", "master", Map.of("org.mooncake.osgi.store.master",
                Map.of("put.start.discard.timeout.ms:Long", 1500, "kv.lease.ttl.ms:Long", 300)));
        int rpc = Cluster.freePort();
        cluster.container("stale-master", "master-short-grants", List.of("rpc.port=" + rpc, "bind=127.0.0.1",
                "admin.port=0"));
        Node storage = cluster.container("stale-storage", "storage", List.of("master=127.0.0.1:" + rpc,
                "segment.size=" + SEGMENT_BYTES, "admin.port=0"));
        RemoteMasterService master = new RemoteMasterService(new InetSocketAddress("127.0.0.1", rpc), 3000, 64 << 20);
        closing.add(master);
        FaultSuite.await("the storage node's segment mounted", 120, () -> master.segments().size() == 1);
        int port = tcpPort(master.segments().getFirst());

        AtomicInteger putsStarted = new AtomicInteger();
        EmbeddedStoreClient a = client("stale-a", master, 1000);
        EmbeddedStoreClient b = client("stale-b", counting(master, putsStarted), 15_000);
        int roundsWithStaleBytes = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            FaultSuite.await("the segment empty", 30, () -> master.segments().getFirst().usedBytes() == 0);
            String keyA = Payloads.key("stale-a", round, OBJECT_BYTES, ObjectDataType.KVCACHE);
            String keyB = Payloads.key("stale-b", round, OBJECT_BYTES, ObjectDataType.KVCACHE);
            Cluster.signal(storage.process, "STOP");
            assertThrows(StoreException.class, () -> a.put(keyA, Payloads.value(keyA), ReplicateConfig.DEFAULT),
                    "a put to a stopped node");
            long staleBytes = unreadBytes(port);
            roundsWithStaleBytes += staleBytes > 0 ? 1 : 0;
            int startedBefore = putsStarted.get();
            CompletableFuture<Void> putB = CompletableFuture.runAsync(() -> putOnceThereIsRoom(b, keyB));
            // B has its range and its WRITE is on the node's sockets, unread like A's
            FaultSuite.await("put B's WRITE queued at the stopped node", 20,
                    () -> failIfDone(putB) && putsStarted.get() > startedBefore && unreadBytes(port) > staleBytes);
            Cluster.signal(storage.process, "CONT");
            putB.get(20, TimeUnit.SECONDS);
            FaultSuite.await("the node read every queued byte", 20, () -> unreadBytes(port) == 0);
            byte[] got;
            try {
                got = b.get(keyB);
            } catch (StoreException e) {
                throw new AssertionError("round " + round + ": object B, acknowledged after put A to the same range "
                        + "timed out (" + staleBytes + " bytes of A were still queued at the node), is unreadable: "
                        + "the stale WRITE of A landed on it", e);
            }
            assertArrayEquals(Payloads.value(keyB), got, "round " + round + ": object B came back with other bytes");
            b.remove(keyB, true);
        }
        assertTrue(roundsWithStaleBytes > 0, "in no round were bytes of put A still queued at the node when it "
                + "timed out: the sequence was not reproduced");
    }

    private EmbeddedStoreClient client(String id, MasterService master, long ioTimeoutMs) throws IOException {
        TcpTransport tcp = new TcpTransport(TcpTransport.loopback(4, 4 << 20, ioTimeoutMs));
        closing.add(tcp);
        return EmbeddedStoreClient.create(master, List.of(tcp), id, ObjectKey.DEFAULT_TENANT, "tcp",
                InstantSource.system());
    }

    /** Put B waits while put A's range is still held (until A's WRITE grant expires, where the master holds it). */
    private static void putOnceThereIsRoom(EmbeddedStoreClient b, String key) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                b.put(key, Payloads.value(key), ReplicateConfig.DEFAULT);
                return;
            } catch (StoreException e) {
                if (e.errorCode() != ErrorCode.NO_AVAILABLE_HANDLE || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    private static boolean failIfDone(CompletableFuture<Void> put) {
        if (put.isDone()) { // thrown as an Error: await takes a RuntimeException for "not yet"
            try {
                put.join();
            } catch (RuntimeException e) {
                throw new AssertionError("put B failed while its node was stopped", e);
            }
            throw new AssertionError("put B finished while its node was stopped");
        }
        return true;
    }

    /** The master, counting the puts it started for this client. */
    private static MasterService counting(MasterService master, AtomicInteger started) {
        return (MasterService) Proxy.newProxyInstance(MasterService.class.getClassLoader(),
                new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(master, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().startsWith("putStart")) {
                        started.incrementAndGet();
                    }
                    return result;
                });
    }

    /** The port of the storage node's tcp endpoint, as the master names it ({@code tcp://host:port}). */
    private static int tcpPort(SegmentStats segment) {
        String tcp = segment.endpoints().stream().filter(e -> e.startsWith("tcp://")).findFirst()
                .orElseThrow(() -> new AssertionError("no tcp endpoint in " + segment));
        return Integer.parseInt(tcp.substring(tcp.lastIndexOf(':') + 1));
    }

    /** Bytes received and not yet read on the connections to {@code port} ({@code ss}: the sum of Recv-Q). */
    static long unreadBytes(int port) {
        try {
            Process p = new ProcessBuilder("ss", "-Htn", "( sport = :" + port + " )").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "ss: " + out);
            long sum = 0;
            for (String line : out.strip().split("\n")) {
                String[] f = line.strip().split("\\s+");
                if (f.length >= 2) {
                    sum += Long.parseLong(f[1]);
                }
            }
            return sum;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
