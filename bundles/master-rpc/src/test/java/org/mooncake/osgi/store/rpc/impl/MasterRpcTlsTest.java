package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

/**
 * The master RPC with mutual TLS, spoken in raw frames by peers holding certificates of the
 * cluster CA (and some that do not): who may connect, and what each identity may do.
 */
@Timeout(120)
class MasterRpcTlsTest {
    private static final String PW = TestCertificates.PASSWORD;
    /**
     * Keystores by identity: master, node-a (node, tenant a), client-a, client-b (no role: client),
     * admin, expired, foreign (another CA), unknown-role.
     */
    private static final Map<String, Path> KEYS = new ConcurrentHashMap<>();
    private static Path trust;
    private static Path otherTrust;

    private final StoreMaster master = newMaster();
    private final MasterRpcServer server;

    @BeforeAll
    static void certificates(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca("cluster");
        Path other = certs.ca("other");
        trust = certs.truststore(ca);
        otherTrust = certs.truststore(other);
        String role = PeerIdentity.ROLE_PREFIX;
        String tenant = PeerIdentity.TENANT_PREFIX;
        try (var pool = Executors.newFixedThreadPool(4)) {
            List<java.util.concurrent.Future<?>> made = List.of(
                    pool.submit(() -> KEYS.put("master", certs.issue(ca, "master", null, 2, role + "master"))),
                    pool.submit(() -> KEYS.put("node-a", certs.issue(ca, "node-a", null, 2, role + "node", tenant + "a"))),
                    pool.submit(() -> KEYS.put("client-a", certs.issue(ca, "client-a", null, 2, role + "client", tenant + "a"))),
                    pool.submit(() -> KEYS.put("client-b", certs.issue(ca, "client-b", null, 2, tenant + "b"))),
                    pool.submit(() -> KEYS.put("admin", certs.issue(ca, "admin", null, 2, role + "admin"))),
                    pool.submit(() -> KEYS.put("expired", certs.issue(ca, "expired", "-3d", 1, role + "client", tenant + "a"))),
                    pool.submit(() -> KEYS.put("foreign", certs.issue(other, "foreign", null, 2, role + "admin", tenant + "a"))),
                    pool.submit(() -> KEYS.put("unknown-role", certs.issue(ca, "unknown-role", null, 2, role + "root"))));
            for (var f : made) {
                f.get();
            }
        }
    }

    MasterRpcTlsTest() throws IOException {
        server = new MasterRpcServer(ServerConfig.tls(KEYS.get("master"), trust, PW), master);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    private static StoreMaster newMaster() {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
    }

    private static SSLContext as(String identity) {
        return new ClusterTls(KEYS.get(identity), trust, PW.toCharArray()).context();
    }

    private RawTlsClient connect(String identity) throws IOException {
        return RawTlsClient.greeted(server.port(), as(identity));
    }

    private static SegmentDescriptor segment(String client, String name) {
        return new SegmentDescriptor(name, client, 1 << 20, new SegmentEndpoint("tcp", "127.0.0.1:1", name));
    }

    private static void assertOk(Messages.Response r) {
        assertEquals(0, r.code(), r.message());
    }

    private static void assertDenied(Messages.Response r, String what) {
        assertEquals(ErrorCode.ACCESS_DENIED.code(), r.code(), what + ": " + r.message());
    }

    /** node-a mounts a segment and writes a/k1 through its own connection. */
    private ObjectKey storedByNodeA(RawTlsClient node) throws IOException {
        ObjectKey k = new ObjectKey("a", "k1");
        assertOk(node.call("HEARTBEAT", "node-a"));
        assertOk(node.call("MOUNT_SEGMENT", segment("node-a", "seg-a")));
        Messages.Response put = node.call("PUT_START", "node-a", k, 100, ReplicateConfig.DEFAULT, false);
        assertOk(put);
        assertOk(node.call("PUT_END", "node-a", k, put.result().get("putId").asLong(), 7L));
        return k;
    }

    @Test
    void identitiesOfTheClusterCaWorkWithinTheirTenants() throws Exception {
        try (RawTlsClient node = connect("node-a"); RawTlsClient client = connect("client-a");
                RawTlsClient admin = connect("admin")) {
            ObjectKey k = storedByNodeA(node);
            assertOk(client.call("HEARTBEAT", "client-a"));
            assertOk(client.call("GET_REPLICA_LIST", k));
            assertTrue(client.call("EXISTS", k).result().asBoolean());
            assertOk(client.call("QUERY_KEY", k));
            assertOk(client.call("EXISTS_BATCH", List.of(k)));
            assertEquals(1, node.call("SEGMENTS").result().size(), "a node sees its own segment");
            assertEquals(0, client.call("SEGMENTS").result().size(), "and nobody else's");
            assertEquals(1, admin.call("SEGMENTS").result().size());
            assertOk(admin.call("STATS"));
            assertEquals(1, client.call("REMOVE_ALL", "a", true).result().asInt());
        }
        RemoteMasterService remote = new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 5000,
                1 << 20, as("client-b"));
        try {
            assertTrue(remote.heartbeat("client-b") != 0, "the Java client over TLS");
            assertEquals(false, remote.exists(new ObjectKey("b", "nothing")));
        } finally {
            remote.close();
        }
    }

    @Test
    void everyOperationOnAnotherTenantIsRefusedAndChangesNothing() throws Exception {
        try (RawTlsClient node = connect("node-a"); RawTlsClient b = connect("client-b")) {
            ObjectKey k = storedByNodeA(node);
            assertOk(b.call("HEARTBEAT", "client-b"));
            PutCompletion done = new PutCompletion(k, 1, 7);
            Map<String, Object[]> attempts = new java.util.LinkedHashMap<>();
            attempts.put("GET_REPLICA_LIST", new Object[] {k});
            attempts.put("EXISTS", new Object[] {k});
            attempts.put("QUERY_KEY", new Object[] {k});
            attempts.put("REMOVE", new Object[] {k, true});
            attempts.put("REMOVE_ALL", new Object[] {"a", true});
            attempts.put("REMOVE_BY_REGEX", new Object[] {"a", ".*", true});
            attempts.put("PUT_START", new Object[] {"client-b", new ObjectKey("a", "new"), 10, ReplicateConfig.DEFAULT, true});
            attempts.put("PUT_END", new Object[] {"client-b", k, 1, 7});
            attempts.put("PUT_REVOKE", new Object[] {"client-b", k, 1});
            attempts.put("GET_REPLICA_LIST_BATCH", new Object[] {List.of(new ObjectKey("b", "x"), k)});
            attempts.put("EXISTS_BATCH", new Object[] {List.of(k)});
            attempts.put("LOOKUP_BATCH", new Object[] {List.of(k)});
            attempts.put("PUT_START_BATCH", new Object[] {"client-b", List.of(k), List.of(10L), ReplicateConfig.DEFAULT, true});
            attempts.put("PUT_END_BATCH", new Object[] {"client-b", List.of(done)});
            attempts.put("PUT_REVOKE_BATCH", new Object[] {"client-b", List.of(done)});
            for (var a : attempts.entrySet()) {
                assertDenied(b.call(a.getKey(), a.getValue()), a.getKey() + " of tenant a by client-b");
            }
            assertTrue(master.exists(k), "the object is still there");
            assertEquals(1, master.stats().objects());
        }
    }

    @Test
    void aClientIdOfAnotherIdentityIsRefused() throws Exception {
        try (RawTlsClient node = connect("node-a"); RawTlsClient a = connect("client-a")) {
            storedByNodeA(node);
            for (Object[] call : List.of(new Object[] {"HEARTBEAT", "node-a"}, new Object[] {"LEAVE", "node-a"},
                    new Object[] {"UNMOUNT_SEGMENT", "node-a", "seg-a"},
                    new Object[] {"PUT_START", "node-a", new ObjectKey("a", "k2"), 10, ReplicateConfig.DEFAULT, false},
                    new Object[] {"PUT_END", "node-a", new ObjectKey("a", "k1"), 1, 7},
                    new Object[] {"PUT_START_BATCH", "node-a", List.of(new ObjectKey("a", "k3")), List.of(10L),
                            ReplicateConfig.DEFAULT, false})) {
                Object[] args = java.util.Arrays.copyOfRange(call, 1, call.length);
                assertDenied(a.call((String) call[0], args), call[0] + " with node-a's client id from client-a");
            }
            assertEquals(1, master.segments().size(), "node-a's segment is still mounted");
            // a client id stays its owner's across connections
            try (RawTlsClient again = connect("node-a")) {
                assertOk(again.call("HEARTBEAT", "node-a"));
            }
        }
    }

    @Test
    void rolesBoundSegmentsAndStats() throws Exception {
        try (RawTlsClient node = connect("node-a"); RawTlsClient a = connect("client-a");
                RawTlsClient admin = connect("admin")) {
            storedByNodeA(node);
            assertOk(a.call("HEARTBEAT", "client-a"));
            assertDenied(a.call("MOUNT_SEGMENT", segment("client-a", "seg-c")), "a client mounting a segment");
            assertDenied(a.call("STATS"), "stats without admin");
            assertDenied(node.call("STATS"), "stats without admin");
            assertOk(admin.call("UNMOUNT_SEGMENT", "node-a", "seg-a"));
            assertEquals(0, master.segments().size(), "an admin may unmount any client's segment");
        }
    }

    @Test
    void connectionsWithoutAValidCertificateOfTheClusterCaAreRefused() throws Exception {
        Map<String, SSLContext> refused = new java.util.LinkedHashMap<>();
        refused.put("a certificate of another CA", new ClusterTls(KEYS.get("foreign"), trust, PW.toCharArray()).context());
        refused.put("an expired certificate", as("expired"));
        refused.put("no certificate", trustOnly(trust));
        refused.put("a certificate with an unknown role", as("unknown-role"));
        for (var r : refused.entrySet()) {
            assertThrows(IOException.class, () -> RawTlsClient.greeted(server.port(), r.getValue()).close(), r.getKey());
        }
        assertThrows(IOException.class, () -> RawTlsClient.greeted(server.port(), null).close(), "plain text");
        try (RawTlsClient still = connect("client-a")) {
            assertOk(still.call("HEARTBEAT", "client-a"));
        }
    }

    @Test
    void aClientRefusesAServerWithoutTheMasterRoleOrOfAnotherCa() throws Exception {
        try (MasterRpcServer impostor = new MasterRpcServer(ServerConfig.tls(KEYS.get("node-a"), trust, PW), master)) {
            RemoteMasterService remote = new RemoteMasterService(new InetSocketAddress("127.0.0.1", impostor.port()),
                    5000, 1 << 20, as("client-a"));
            StoreException e = assertThrows(StoreException.class, () -> remote.heartbeat("client-a"));
            assertEquals(ErrorCode.RPC_FAIL, e.errorCode());
            assertTrue(e.getMessage().contains("not of a master"), e.getMessage());
            remote.close();
        }
        RemoteMasterService trustsOther = new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()),
                5000, 1 << 20, new ClusterTls(KEYS.get("client-a"), otherTrust, PW.toCharArray()).context());
        assertEquals(ErrorCode.RPC_FAIL,
                assertThrows(StoreException.class, () -> trustsOther.heartbeat("client-a")).errorCode());
        trustsOther.close();
    }

    @Test
    void aServerWithoutTlsRefusesToStartUnlessInsecure() {
        ServerConfig none = new ServerConfig("127.0.0.1", 0, 1 << 20, "", "", "", false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MasterRpcServer(none, master));
        assertTrue(e.getMessage().contains("tls.insecure=true"), e.getMessage());
        ServerConfig half = new ServerConfig("127.0.0.1", 0, 1 << 20, KEYS.get("master").toString(), "", PW, false);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MasterRpcServer(half, master)).getMessage()
                .contains("both"));
        ServerConfig wrong = new ServerConfig("127.0.0.1", 0, 1 << 20, KEYS.get("master").toString(), trust.toString(),
                "not-the-password", false);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MasterRpcServer(wrong, master)).getMessage()
                .contains("cannot use TLS stores"));
    }

    /**
     * What TLS costs a master call: the same EXISTS over one connection, plain and TLS, in
     * alternated rounds (medians printed, not asserted: the figures of docs/security.md), and the
     * time to open a connection (TCP, TLS handshake and HELLO).
     */
    @Test
    void whatTlsCostsAMasterCallIsPrinted() throws Exception {
        ObjectKey k = new ObjectKey("a", "absent");
        try (MasterRpcServer plain = new MasterRpcServer(ServerConfig.plain(0, 1 << 20), master)) {
            int calls = 2000;
            long[][] perCall = new long[2][5];
            long[][] perConnect = new long[2][5];
            for (int round = 0; round < 5; round++) {
                for (int tls = 0; tls < 2; tls++) {
                    int port = tls == 1 ? server.port() : plain.port();
                    SSLContext ctx = tls == 1 ? as("client-a") : null;
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 10; i++) {
                        RawTlsClient.greeted(port, ctx).close();
                    }
                    perConnect[tls][round] = (System.nanoTime() - t0) / 10;
                    try (RawTlsClient c = RawTlsClient.greeted(port, ctx)) {
                        long t1 = System.nanoTime();
                        for (int i = 0; i < calls; i++) {
                            assertEquals(false, c.call("EXISTS", k).result().asBoolean());
                        }
                        perCall[tls][round] = (System.nanoTime() - t1) / calls;
                    }
                }
            }
            System.out.printf(java.util.Locale.ROOT, "master RPC, EXISTS over one connection: plain %.1f us, TLS 1.3 %.1f us;"
                    + " connect + HELLO: plain %.2f ms, TLS 1.3 (mutual, EC P-256) %.2f ms (medians of 5 alternated rounds)%n",
                    median(perCall[0]) / 1e3, median(perCall[1]) / 1e3, median(perConnect[0]) / 1e6,
                    median(perConnect[1]) / 1e6);
        }
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static SSLContext trustOnly(Path truststore) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(truststore)) {
            ks.load(in, PW.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance(ClusterTls.PROTOCOL);
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}
