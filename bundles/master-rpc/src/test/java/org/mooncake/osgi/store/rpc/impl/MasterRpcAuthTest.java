package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

/**
 * Access tokens at HELLO, connections per identity, and what reaches whom of the endpoints (with
 * the ucx remote keys in them), spoken in raw frames.
 */
@Timeout(120)
class MasterRpcAuthTest {
    private static final String PW = TestCertificates.PASSWORD;
    private static final String TOKEN_A = "token-of-tenant-a-0123456789";
    private static final String TOKEN_B = "token-of-tenant-b-0123456789";
    private static final String TOKEN_NODE = "token-of-node-a-0123456789";
    private static final String TOKEN_ADMIN = "token-of-the-admin-0123456789";
    /** Stands for a ucx endpoint's packed remote key: it must reach only tenant a's identities. */
    private static final String RKEY = "v1.REMOTE-KEY-OF-SEG-A";
    private static final Map<String, Path> KEYS = new ConcurrentHashMap<>();
    private static Path trust;
    private static Path tokens;

    @BeforeAll
    static void credentials(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca("cluster");
        trust = certs.truststore(ca);
        String role = PeerIdentity.ROLE_PREFIX;
        String tenant = PeerIdentity.TENANT_PREFIX;
        try (var pool = Executors.newFixedThreadPool(4)) {
            var made = List.of(
                    pool.submit(() -> KEYS.put("master", certs.issue(ca, "master", null, 2, role + "master"))),
                    pool.submit(() -> KEYS.put("node-a", certs.issue(ca, "node-a", null, 2, role + "node", tenant + "a"))),
                    pool.submit(() -> KEYS.put("client-a", certs.issue(ca, "client-a", null, 2, tenant + "a"))),
                    pool.submit(() -> KEYS.put("client-b", certs.issue(ca, "client-b", null, 2, tenant + "b"))));
            for (var f : made) {
                f.get();
            }
        }
        tokens = dir.resolve("tokens");
        Files.write(tokens, List.of("# tokens of the test cluster", TOKEN_A + " tenant=a", TOKEN_B + " tenant=b",
                TOKEN_NODE + " tenant=a role=node name=node-a", TOKEN_ADMIN + " role=admin"));
    }

    private static StoreMaster newMaster() {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
    }

    private static SSLContext as(String identity) {
        return new ClusterTls(KEYS.get(identity), trust, PW.toCharArray()).context();
    }

    private static ServerConfig tlsServer(int maxConnections) {
        return ServerConfig.tls(KEYS.get("master"), trust, PW).withAuth(tokens.toString(), maxConnections);
    }

    /** A plain-text server that authenticates by token only. */
    private static ServerConfig tokenServer() {
        return new ServerConfig("127.0.0.1", 0, 1 << 20, "", "", "", false).withAuth(tokens.toString(), 64);
    }

    /** Connects and says HELLO with these arguments after the version; the answer to HELLO. */
    private static Messages.Response hello(RawTlsClient c, Object... more) throws IOException {
        Object[] args = new Object[more.length + 1];
        args[0] = Frames.PROTOCOL_VERSION;
        System.arraycopy(more, 0, args, 1, more.length);
        return c.call("HELLO", args);
    }

    private static RawTlsClient greeted(int port, SSLContext tls, String token) throws IOException {
        RawTlsClient c = new RawTlsClient(port, tls);
        Messages.Response r = token == null ? hello(c) : hello(c, token);
        if (r.code() != 0) {
            c.close();
            throw new IOException("HELLO refused: " + r.message());
        }
        return c;
    }

    private static void assertOk(Messages.Response r) {
        assertEquals(0, r.code(), r.message());
    }

    private static void assertDenied(Messages.Response r, String what) {
        assertEquals(ErrorCode.ACCESS_DENIED.code(), r.code(), what + ": " + r.message());
    }

    /** node-a (by token or certificate) mounts seg-a, whose endpoint carries {@link #RKEY}, and writes a/k1. */
    private static ObjectKey storedByNodeA(RawTlsClient node) throws IOException {
        ObjectKey k = new ObjectKey("a", "k1");
        assertOk(node.call("HEARTBEAT", "node-a"));
        assertOk(node.call("MOUNT_SEGMENT", new SegmentDescriptor("seg-a", "node-a", 1 << 20,
                new SegmentEndpoint("ucx", RKEY, "seg-a"))));
        Messages.Response put = node.call("PUT_START", "node-a", k, 100, ReplicateConfig.DEFAULT, false);
        assertOk(put);
        assertTrue(put.result().toString().contains(RKEY), "the writer gets the endpoint it writes to");
        assertOk(node.call("PUT_END", "node-a", k, put.result().get("putId").asLong(), 7L));
        return k;
    }

    @Test
    void withoutTheRightTokenHelloIsRefused() throws Exception {
        try (MasterRpcServer server = new MasterRpcServer(tokenServer(), newMaster())) {
            Map<String, Object[]> refused = new java.util.LinkedHashMap<>();
            refused.put("no token", new Object[0]);
            refused.put("a wrong token", new Object[] {"token-of-nobody-0123456789"});
            refused.put("a token one character short", new Object[] {TOKEN_A.substring(1)});
            refused.put("a token that is no string", new Object[] {42});
            for (var r : refused.entrySet()) {
                try (RawTlsClient c = new RawTlsClient(server.port(), null)) {
                    assertDenied(hello(c, r.getValue()), r.getKey());
                }
            }
            try (RawTlsClient a = greeted(server.port(), null, TOKEN_A)) {
                assertOk(a.call("EXISTS", new ObjectKey("a", "k")));
            }
        }
        try (MasterRpcServer noTokens = new MasterRpcServer(ServerConfig.plain(0, 1 << 20), newMaster());
                RawTlsClient c = new RawTlsClient(noTokens.port(), null)) {
            Messages.Response r = hello(c, TOKEN_A);
            assertDenied(r, "a token to a master without tokens");
            assertTrue(r.message().contains("auth.tokens.file"), r.message());
        }
    }

    @Test
    void aTokensIdentityIsBoundByItsTenantAndRoleLikeACertificates() throws Exception {
        StoreMaster master = newMaster();
        try (MasterRpcServer server = new MasterRpcServer(tokenServer(), master);
                RawTlsClient node = greeted(server.port(), null, TOKEN_NODE);
                RawTlsClient a = greeted(server.port(), null, TOKEN_A);
                RawTlsClient b = greeted(server.port(), null, TOKEN_B);
                RawTlsClient admin = greeted(server.port(), null, TOKEN_ADMIN)) {
            ObjectKey k = storedByNodeA(node);
            assertOk(a.call("GET_REPLICA_LIST", k));
            assertOk(a.call("QUERY_KEY", k));
            assertDenied(b.call("GET_REPLICA_LIST", k), "tenant b's token reading tenant a");
            assertDenied(b.call("REMOVE_ALL", "a", true), "tenant b's token removing tenant a");
            assertDenied(b.call("HEARTBEAT", "node-a"), "another identity's client id");
            assertDenied(a.call("MOUNT_SEGMENT", new SegmentDescriptor("seg-x", "client-x", 1 << 20,
                    new SegmentEndpoint("tcp", "127.0.0.1:1", "seg-x"))), "mounting without the node role");
            assertDenied(a.call("STATS"), "stats without admin");
            assertOk(admin.call("STATS"));
            assertTrue(master.exists(k), "nothing refused changed anything");
        }
    }

    @Test
    void aTokenStandsInForTheCertificateOnATlsConnection() throws Exception {
        StoreMaster master = newMaster();
        try (MasterRpcServer server = new MasterRpcServer(tlsServer(64), master);
                RawTlsClient node = greeted(server.port(), as("node-a"), null);
                RawTlsClient bByToken = greeted(server.port(), as("client-a"), TOKEN_B)) {
            ObjectKey k = storedByNodeA(node);
            assertDenied(bByToken.call("GET_REPLICA_LIST", k), "client-a's certificate presenting tenant b's token");
            assertOk(bByToken.call("EXISTS", new ObjectKey("b", "x")));
            try (RawTlsClient c = new RawTlsClient(server.port(), as("client-a"))) {
                assertDenied(hello(c, "token-of-nobody-0123456789"), "a wrong token beside a good certificate");
            }
        }
    }

    @Test
    void oneConnectionOverTheLimitOfAnIdentityIsRefusedUntilOneCloses() throws Exception {
        int max = 3;
        try (MasterRpcServer server = new MasterRpcServer(tlsServer(max), newMaster())) {
            List<RawTlsClient> open = new ArrayList<>();
            try {
                for (int i = 0; i < max; i++) {
                    open.add(greeted(server.port(), as("client-a"), null));
                }
                try (RawTlsClient extra = new RawTlsClient(server.port(), as("client-a"))) {
                    Messages.Response r = hello(extra);
                    assertDenied(r, "connection " + (max + 1) + " of client-a");
                    assertTrue(r.message().contains("client-a already holds 3 connections")
                            && r.message().contains("max.connections.per.identity"), r.message());
                }
                try (RawTlsClient other = greeted(server.port(), as("client-b"), null)) {
                    assertOk(other.call("EXISTS", new ObjectKey("b", "x")));
                }
                // a token is an identity of its own, though it travels over client-a's certificate
                try (RawTlsClient byToken = greeted(server.port(), as("client-a"), TOKEN_A)) {
                    assertOk(byToken.call("EXISTS", new ObjectKey("a", "x")));
                }
                open.removeFirst().close();
                assertTrue(admittedBefore(System.nanoTime() + 10_000_000_000L, server.port(), as("client-a")),
                        "a closed connection is released");
                for (RawTlsClient c : open) {
                    assertOk(c.call("EXISTS", new ObjectKey("a", "x")));
                }
            } finally {
                for (RawTlsClient c : open) {
                    c.close();
                }
            }
        }
    }

    /** Tries to connect until admitted (the server counts a connection closed when it reads the EOF). */
    private static boolean admittedBefore(long deadlineNanos, int port, SSLContext tls) throws IOException {
        while (System.nanoTime() < deadlineNanos) {
            try (RawTlsClient c = new RawTlsClient(port, tls)) {
                if (hello(c).code() == 0) {
                    return true;
                }
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Endpoints, and the ucx remote keys inside them, leave the master only in answers about the
     * caller's own tenant or segments: every response that can carry one, asked across tenants,
     * is ACCESS_DENIED or empty, and carries no trace of the key.
     */
    @Test
    void endpointsAndRemoteKeysReachOnlyTheRightTenant() throws Exception {
        try (MasterRpcServer server = new MasterRpcServer(tlsServer(64), newMaster());
                RawTlsClient node = greeted(server.port(), as("node-a"), null);
                RawTlsClient a = greeted(server.port(), as("client-a"), null);
                RawTlsClient b = greeted(server.port(), as("client-b"), null)) {
            ObjectKey k = storedByNodeA(node);
            assertOk(b.call("HEARTBEAT", "client-b"));
            Map<String, Object[]> carriers = new java.util.LinkedHashMap<>();
            carriers.put("GET_REPLICA_LIST", new Object[] {k});
            carriers.put("GET_REPLICA_LIST_BATCH", new Object[] {List.of(k)});
            carriers.put("QUERY_KEY", new Object[] {k});
            carriers.put("PUT_START", new Object[] {"client-b", new ObjectKey("a", "k2"), 10, ReplicateConfig.DEFAULT, true});
            carriers.put("PUT_START_BATCH", new Object[] {"client-b", List.of(new ObjectKey("a", "k3")), List.of(10L),
                ReplicateConfig.DEFAULT, true});
            for (var c : carriers.entrySet()) {
                Messages.Response r = b.call(c.getKey(), c.getValue());
                assertDenied(r, c.getKey() + " across tenants");
                assertFalse(String.valueOf(r.result()).contains(RKEY) || String.valueOf(r.message()).contains(RKEY),
                        c.getKey() + " leaks no endpoint");
            }
            Messages.Response segments = b.call("SEGMENTS");
            assertOk(segments);
            assertEquals(0, segments.result().size(), "another tenant's client sees no segment");
            // the right tenant gets them, from each of the same operations
            assertTrue(a.call("GET_REPLICA_LIST", k).result().toString().contains(RKEY));
            assertTrue(a.call("GET_REPLICA_LIST_BATCH", List.of(k)).result().toString().contains(RKEY));
            assertTrue(a.call("QUERY_KEY", k).result().toString().contains(RKEY));
            assertTrue(node.call("SEGMENTS").result().toString().contains(RKEY), "the owner sees its segment");
        }
    }
}
