package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

/** The Java client identifies itself by an access token where the master takes tokens. */
class RemoteMasterTokenTest {
    private static final String TOKEN_A = "token-of-tenant-a-0123456789";

    @TempDir
    Path dir;

    private static StoreMaster master() {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
    }

    private MasterRpcServer tokenServer() throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.write(tokens, List.of(TOKEN_A + " tenant=a"));
        return new MasterRpcServer(new ServerConfig("127.0.0.1", 0, 1 << 20, "", "", "", false)
                .withAuth(tokens.toString(), 64), master());
    }

    private static RemoteMasterService client(MasterRpcServer server, String token) throws Exception {
        return new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 5_000, 1 << 20)
                .withToken(token);
    }

    @Test
    void withItsTokenTheClientActsForItsTenantOnly() throws Exception {
        try (MasterRpcServer server = tokenServer(); RemoteMasterService a = client(server, TOKEN_A)) {
            a.heartbeat("client-a");
            assertFalse(a.exists(new ObjectKey("a", "k")));
            StoreException other = assertThrows(StoreException.class, () -> a.exists(new ObjectKey("b", "k")));
            assertEquals(ErrorCode.ACCESS_DENIED, other.errorCode());
        }
    }

    @Test
    void withoutATokenOrWithAWrongOneNothingIsAnswered() throws Exception {
        try (MasterRpcServer server = tokenServer();
                RemoteMasterService none = client(server, null);
                RemoteMasterService wrong = client(server, "not-a-token-of-this-cluster")) {
            assertThrows(StoreException.class, () -> none.heartbeat("x"));
            assertThrows(StoreException.class, () -> wrong.heartbeat("x"));
        }
    }

    @Test
    void theTokenFileIsReadClearlyAndTheTokenNeverPrinted() throws Exception {
        assertNull(RemoteMasterComponent.Settings.token(""));
        Path file = dir.resolve("token");
        Files.write(file, List.of(TOKEN_A, "ignored"));
        assertEquals(TOKEN_A, RemoteMasterComponent.Settings.token(file.toString()));
        Files.write(file, List.of("  "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RemoteMasterComponent.Settings.token(file.toString()))
                .getMessage().contains("holds no token"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> RemoteMasterComponent.Settings.token(dir.resolve("absent").toString())).getMessage()
                .contains("cannot be read"));
        var settings = new RemoteMasterComponent.Settings("h", 1, 5, 1 << 20, null, TOKEN_A);
        assertFalse(settings.toString().contains(TOKEN_A), settings.toString());
    }
}
