package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.RepeatedTest;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.tcp.TcpTransport;
import org.mooncake.osgi.transport.ucx.UcxTransport;

/**
 * A reader's transports go from tcp to ucx and back while two threads put, get and check bytes,
 * as when an operator deploys the ucx bundle and later removes it: the owner serves its segment
 * over both. Each swap binds the new transport first (ucx over shared memory is cheaper, so new
 * transfers take it; tcp again once ucx is gone), then closes the old one. Only a transfer in
 * flight on the closed transport may fail (TRANSFER_FAIL, never a half-visible object), no read
 * returns wrong bytes, and every object stored before the swaps is intact after them.
 */
class UcxSwapUnderLoadTest {
    private static final int WORKERS = 2;

    @RepeatedTest(3)
    void tcpToUcxAndBackLosesNoObjectAndFailsOnlyWhatWasInFlight() throws Exception {
        if (!UcxTransport.available()) {
            if (Boolean.getBoolean("mooncake.ucx.required")) {
                fail("mooncake.ucx.required is true but " + UcxTransport.unavailableReason());
            }
            Assumptions.abort(UcxTransport.unavailableReason());
        }
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        try (Arena arena = Arena.ofShared();
                TcpTransport ownerTcp = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
                UcxTransport ownerUcx = new UcxTransport(UcxTransport.with("posix,self"))) {
            EmbeddedStoreClient owner = EmbeddedStoreClient.create(master, List.of(ownerTcp, ownerUcx), "owner",
                    "default", UcxTransport.PROTOCOL, InstantSource.system());
            owner.mountNewSegment(64 << 20, arena);
            TcpTransport readerTcp = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            EmbeddedStoreClient reader = EmbeddedStoreClient.create(master, List.of(readerTcp), "reader", "default",
                    "tcp", InstantSource.system());
            Map<String, byte[]> kept = new LinkedHashMap<>();
            Random seeds = new Random(7);
            for (int i = 0; i < 40; i++) {
                byte[] v = new byte[1 + seeds.nextInt(300_000)];
                seeds.nextBytes(v);
                reader.put("kept-" + i, v, ReplicateConfig.DEFAULT);
                kept.put("kept-" + i, v);
            }

            SwapLoad load = new SwapLoad(reader, WORKERS, 50_000, 200_000);
            load.awaitProgress(30, "work over tcp");
            UcxTransport readerUcx = new UcxTransport(UcxTransport.with("posix,self"));
            reader.transports().add(readerUcx);
            SwapLoad.await(() -> bytes(reader, UcxTransport.PROTOCOL) > 0, "transfers taking ucx, the cheaper endpoint");
            reader.transports().remove(readerTcp);
            readerTcp.close();
            load.awaitProgress(30, "work over ucx alone");

            TcpTransport tcpAgain = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            long tcpBytes = bytes(reader, "tcp");
            reader.transports().add(tcpAgain);
            reader.transports().remove(readerUcx);
            readerUcx.close();
            SwapLoad.await(() -> bytes(reader, "tcp") > tcpBytes, "transfers back on tcp");
            load.awaitProgress(30, "work over tcp again");
            load.close();

            assertEquals(List.of(), List.copyOf(load.wrong));
            assertTrue(load.failedCleanly.get() <= 2L * WORKERS,
                    load.failedCleanly.get() + " operations failed; only those in flight on a closed transport may");
            for (Map.Entry<String, byte[]> e : kept.entrySet()) {
                assertArrayEquals(e.getValue(), reader.get(e.getKey()), e.getKey() + " after both swaps");
            }
            tcpAgain.close();
            owner.unmountAll();
        }
    }

    private static long bytes(EmbeddedStoreClient c, String protocol) {
        return c.transports().transferStats().stream().filter(s -> s.protocol().equals(protocol))
                .mapToLong(s -> s.bytesRead() + s.bytesWritten()).sum();
    }
}
