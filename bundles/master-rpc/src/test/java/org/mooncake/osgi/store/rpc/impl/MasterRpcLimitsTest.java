package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.InstantSource;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

/** The server's input limits as configured: batch length, a frame's time to arrive, an idle connection. */
class MasterRpcLimitsTest {
    /** How long the test waits for the server to hang up: far beyond the limits under test. */
    private static final int PATIENCE_MS = 20_000;

    private final MasterRpcServer server;

    MasterRpcLimitsTest() throws IOException {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
        server = new MasterRpcServer(ServerConfig.plain(0, 1 << 20).withLimits(4, 300, 300), master);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    /** Raw requests: the Java client splits a longer batch itself (BatchSplittingTest). */
    @Test
    void aBatchLongerThanTheLimitIsRefusedAndOneWithinItIsServed() throws IOException {
        // encoded before connecting: a cold encoder can take longer than this server's idle timeout
        var hello = Messages.CBOR.createArrayNode().add(Frames.PROTOCOL_VERSION);
        var four = Messages.CBOR.createArrayNode().add(Messages.CBOR.valueToTree(
                IntStream.range(0, 4).mapToObj(i -> ObjectKey.of("k" + i)).toList()));
        var five = Messages.CBOR.createArrayNode().add(Messages.CBOR.valueToTree(
                IntStream.range(0, 5).mapToObj(i -> ObjectKey.of("k" + i)).toList()));
        Messages.CBOR.writeValueAsBytes(new Messages.Request(0, "EXISTS_BATCH", 0, 5000, five));
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 5000, 1 << 20)) {
            assertEquals(0, c.call("HELLO", hello, 5000).code());
            Messages.Response within = c.call("EXISTS_BATCH", four, 5000);
            assertEquals(List.of(0, 4), List.of(within.code(), within.result().size()));
            StoreException e = RemoteMasterService.error(c.call("EXISTS_BATCH", five, 5000));
            assertEquals(ErrorCode.INVALID_PARAMS, e.errorCode(), e.getMessage());
        }
    }

    @Test
    void aFrameThatTricklesInIsCutOffAfterTheFrameTimeout() throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(Frames.MAGIC);
            out.writeInt(1000);
            out.write(new byte[10]); // and then nothing: the rest of the frame never comes
            out.flush();
            assertHungUp(s);
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            assertHungUp(s);
        }
    }

    /** The server closes the connection well before the test's patience runs out (a timeout here fails). */
    private static void assertHungUp(Socket s) throws IOException {
        s.setSoTimeout(PATIENCE_MS);
        InputStream in = s.getInputStream();
        try {
            assertEquals(-1, in.read(), "the server answers nothing to a frame that never completed");
        } catch (SocketException reset) {
            assertTrue(reset.getMessage().contains("reset"), reset.getMessage());
        }
    }
}
