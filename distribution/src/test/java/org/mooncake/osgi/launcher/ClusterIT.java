package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A real cluster on loopback: a master process and two storage processes started with
 * bin/mooncake, and this JVM as a pure client. Objects cross processes over the master RPC and
 * the TCP transport; a storage node that dies takes its objects' replicas with it, whole. The
 * first cluster runs with mutual TLS on certificates from {@code bin/mooncake cert cluster}, the
 * second without ({@code tls.insecure=true}).
 */
class ClusterIT {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home"));
    private static final Path CERTS = HOME.resolve("..").resolve("cluster-certs");
    private final List<Process> processes = new ArrayList<>();

    /** A CA, master, node, client and admin certificates, made once as an operator would. */
    @BeforeAll
    static void certificates() throws Exception {
        if (Files.exists(CERTS.resolve("admin.p12"))) {
            return;
        }
        if (Files.exists(CERTS)) {
            try (var files = Files.list(CERTS)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
        Process p = new ProcessBuilder("bash", HOME.resolve("bin/mooncake").toString(), "cert", "cluster",
                CERTS.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }

    /** The --set arguments that give a process the certificate {@code name}. */
    private static List<String> tls(String name) throws IOException {
        return List.of("--set", "tls.keystore=" + CERTS.resolve(name + ".p12"), "--set",
                "tls.truststore=" + CERTS.resolve("truststore.p12"), "--set", "tls.password=" + password());
    }

    private static String password() throws IOException {
        return Files.readString(CERTS.resolve("password")).trim();
    }

    /** This JVM's side of mutual TLS, with the certificate {@code name}: the JDK's own API, as any client would. */
    private static SSLContext context(String name) throws Exception {
        char[] pw = password().toCharArray();
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(KeyStore.getInstance(CERTS.resolve(name + ".p12").toFile(), pw), pw);
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(KeyStore.getInstance(CERTS.resolve("truststore.p12").toFile(), pw));
        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        ctx.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        return ctx;
    }

    private static String[] args(List<String> first, List<String> more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(more);
        return all.toArray(String[]::new);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Process start(String instance, String... args) throws IOException {
        List<Path> logs = List.of(HOME.resolve("..").resolve("cluster-logs"));
        Files.createDirectories(logs.getFirst());
        List<String> cmd = new ArrayList<>(List.of("bash", HOME.resolve("bin/mooncake").toString(), "start", "--headless",
                "--instance", instance));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(logs.getFirst().resolve(instance + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    /** Waits up to a minute for another process to reach a state; a master not up yet counts as not yet. */
    private static void await(String what, Callable<Boolean> condition) {
        org.awaitility.Awaitility.await(what + " (see target/cluster-logs)").atMost(java.time.Duration.ofSeconds(60))
                .pollInterval(java.time.Duration.ofMillis(100)).ignoreException(StoreException.class).until(condition);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void objectsCrossProcessesAndADeadStorageNodeTakesOnlyItsReplicas() throws Exception {
        int rpc = freePort();
        String[] masterArgs = args(List.of("--profile", "master", "--set", "rpc.port=" + rpc, "--set", "admin.port=0",
            "--set", "client.ttl.ms=4000"), tls("master"));
        String address = "127.0.0.1:" + rpc;
        String[] storageArgs = args(List.of("--profile", "storage", "--master", address, "--set", "segment.size=67108864"),
                tls("node"));
        // a cluster profile without certificates, and without tls.insecure=true, does not start its master link
        Process refused = start("it-storage-no-tls", "--profile", "storage", "--master", address);
        Path noTls = HOME.resolve("..").resolve("cluster-logs").resolve("it-storage-no-tls.log");
        await("the refusal of a node without TLS", () -> Files.readString(noTls).contains("--set tls.insecure=true"));
        assertTrue(refused.waitFor(60, TimeUnit.SECONDS), "a node that cannot reach its master securely stops");
        assertEquals(1, refused.exitValue());
        assertTrue(Files.readString(noTls).contains("components the profile configured could not start"),
                Files.readString(noTls));
        // this node starts before its master: it mounts its segment once the master answers
        Process s2 = start("it-storage-2", storageArgs);
        Path s2log = HOME.resolve("..").resolve("cluster-logs").resolve("it-storage-2.log");
        await("storage 2 up without its master",
                () -> Files.readString(s2log).contains("is mounted once the master answers"));
        Process masterProcess = start("it-master", masterArgs);
        RemoteMasterService master = new RemoteMasterService(new InetSocketAddress("127.0.0.1", rpc), 3000, 16 << 20,
                context("admin"));
        await("the master", () -> master.stats() != null);
        Process s1 = start("it-storage-1", storageArgs);
        await("two storage segments", () -> master.segments().size() == 2);
        // served over tcp to other processes (and in-process over local, which they skip)
        assertTrue(master.segments().stream().allMatch(s -> List.of(s.protocol().split(",")).contains("tcp")),
                master.segments().toString());

        // the storage profile makes the data path TLS with the cluster's stores: this client's tcp does too
        try (TcpTransport net = new TcpTransport(TcpTransport.withTls(TcpTransport.loopback(4, 1 << 20, 10_000),
                CERTS.resolve("client.p12").toString(), CERTS.resolve("truststore.p12").toString(), password()))) {
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(net), "it-client", "default", "tcp",
                    InstantSource.system());
            Random rnd = new Random(9);
            byte[][] values = new byte[40][];
            for (int i = 0; i < 40; i++) {
                values[i] = new byte[(1 << 20) + i];
                rnd.nextBytes(values[i]);
                client.put("k" + i, values[i], ReplicateConfig.builder().replicaCount(i < 20 ? 2 : 1).build());
            }
            for (int i = 0; i < 40; i++) {
                assertArrayEquals(values[i], client.get("k" + i), "k" + i + " read back across processes");
            }

            s1.destroyForcibly();
            await("the dead node's segment dropped", () -> master.segments().size() == 1);
            int lost = 0;
            for (int i = 0; i < 40; i++) {
                try {
                    assertArrayEquals(values[i], client.get("k" + i));
                } catch (StoreException e) {
                    assertEquals(ErrorCode.OBJECT_NOT_FOUND, e.errorCode(), "k" + i + ": gone whole, never garbage");
                    assertTrue(i >= 20, "k" + i + " had a replica on the surviving node");
                    lost++;
                }
            }
            assertTrue(lost > 0, "some single-replica objects lived on the dead node");
            assertEquals(40 - lost, master.stats().objects());
            client.put("after", values[0]);
            assertArrayEquals(values[0], client.get("after"));

            // the master dies and comes back on its port: nothing restarts, the storage node mounts again
            masterProcess.destroyForcibly().waitFor();
            Process master2 = start("it-master-2", masterArgs);
            await("the surviving node mounted again on the new master", () -> master.segments().size() == 1);
            assertEquals(0, master.stats().objects(), "a restarted master has lost every object (no HA yet)");
            client.put("reborn", values[1]);
            assertArrayEquals(values[1], client.get("reborn"));

            // the last node vanishes; until the master notices, its segment is still handed out
            s2.destroyForcibly().waitFor();
            StoreException put = org.junit.jupiter.api.Assertions.assertThrows(StoreException.class,
                    () -> client.put("late", values[2]));
            assertTrue(put.errorCode() == ErrorCode.TRANSFER_FAIL || put.errorCode() == ErrorCode.NO_AVAILABLE_HANDLE,
                    put.getMessage());
            assertTrue(!client.exists("late"), "a failed put is revoked, never readable");
            StoreException get = org.junit.jupiter.api.Assertions.assertThrows(StoreException.class,
                    () -> client.get("reborn"));
            assertTrue(get.errorCode() == ErrorCode.TRANSFER_FAIL || get.errorCode() == ErrorCode.OBJECT_NOT_FOUND,
                    get.getMessage());

            // SIGTERM stops the container, and what it says while stopping reaches its log
            master2.destroy();
            assertTrue(master2.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the master stopped on SIGTERM");
            String said = Files.readString(HOME.resolve("..").resolve("cluster-logs").resolve("it-master-2.log"));
            assertTrue(said.contains("eviction policy lease-lru withdrawn"), said);
        } finally {
            master.close();
        }
    }

    /**
     * The storage node is killed while bytes move: a put in flight fails and is revoked, a get in
     * flight fails; neither ever yields a readable half-object.
     */
    @Test
    void aNodeKilledMidTransferFailsThePutAndTheGetCleanly() throws Exception {
        int rpc = freePort();
        start("it-kill-master", "--profile", "master", "--set", "rpc.port=" + rpc, "--set", "admin.port=0",
                "--set", "client.ttl.ms=4000", "--set", "tls.insecure=true");
        RemoteMasterService master = new RemoteMasterService(new InetSocketAddress("127.0.0.1", rpc), 3000, 16 << 20);
        String address = "127.0.0.1:" + rpc;
        long big = 192L << 20;
        try (TcpTransport net = new TcpTransport(TcpTransport.loopback(4, 1 << 20, 10_000));
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            await("the master", () -> master.stats() != null);
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(net), "it-kill-client", "default", "tcp",
                    InstantSource.system());
            java.lang.foreign.MemorySegment source = arena.allocate(big, 64);
            source.fill((byte) 0x5A);
            java.lang.foreign.MemorySegment target = arena.allocate(big, 64);
            client.registerBuffer(source);
            client.registerBuffer(target);

            // mid-put: kill the only node once the master has handed out the space
            Process node = start("it-kill-storage-1", "--profile", "storage", "--master", address,
                    "--set", "segment.size=" + (256L << 20), "--set", "tls.insecure=true");
            await("a storage segment", () -> master.segments().size() == 1);
            var putResult = java.util.concurrent.CompletableFuture.runAsync(
                    () -> client.putFrom("big", source, ReplicateConfig.DEFAULT));
            while (master.stats().processingPuts() == 0 && !putResult.isDone()) {
                Thread.onSpinWait();
            }
            node.destroyForcibly();
            var putFailure = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    putResult::get, "the put finished before the node died: make the object larger");
            assertTrue(putFailure.getCause() instanceof StoreException e && e.errorCode() == ErrorCode.TRANSFER_FAIL,
                    String.valueOf(putFailure.getCause()));
            assertTrue(!client.exists("big"), "a put that failed mid-transfer is revoked, never readable");
            assertEquals(0, master.stats().processingPuts(), "the failed put was revoked");

            // mid-get: kill a fresh node once the first bytes of the object have arrived
            node.waitFor();
            await("the dead node's segment dropped", () -> master.segments().isEmpty());
            Process second = start("it-kill-storage-2", "--profile", "storage", "--master", address,
                    "--set", "segment.size=" + (256L << 20), "--set", "tls.insecure=true");
            await("a new storage segment", () -> master.segments().size() == 1);
            client.putFrom("big", source, ReplicateConfig.DEFAULT);
            var getResult = java.util.concurrent.CompletableFuture.supplyAsync(() -> client.getInto("big", target));
            while (target.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) == 0 && !getResult.isDone()) {
                Thread.onSpinWait();
            }
            second.destroyForcibly();
            var getFailure = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    getResult::get, "the get finished before the node died: make the object larger");
            assertTrue(getFailure.getCause() instanceof StoreException e && e.errorCode() == ErrorCode.TRANSFER_FAIL,
                    String.valueOf(getFailure.getCause()));
        } finally {
            master.close();
        }
    }
}
