package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.List;

import org.junit.jupiter.api.RepeatedTest;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A reader's TCP transport is replaced (as when its bundle is updated) while two threads keep
 * putting and getting through it: transfers in flight on the old one finish or fail with
 * TRANSFER_FAIL, later ones use the new one, and no read ever returns wrong bytes.
 */
class TransportSwapTest {

    @RepeatedTest(3)
    void swappingTheTransportUnderLoadFailsCleanlyAndCarriesOn() throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        try (Arena arena = Arena.ofShared(); TcpTransport ownerNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            EmbeddedStoreClient owner = EmbeddedStoreClient.create(master, List.of(ownerNet), "owner", "default", "tcp",
                    InstantSource.system());
            owner.mountNewSegment(64 << 20, arena);
            TcpTransport oldNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            EmbeddedStoreClient reader = EmbeddedStoreClient.create(master, List.of(oldNet), "reader", "default", "tcp",
                    InstantSource.system());
            SwapLoad load = new SwapLoad(reader, 2, 100_000, 100_000);
            load.awaitProgress(50, "work before the swap");
            long before = load.ok.get();
            TcpTransport newNet = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
            reader.transports().add(newNet); // same protocol: the new one replaces the old in the map
            oldNet.close();
            load.awaitProgress(50, "work after the swap");
            long after = load.ok.get();
            load.close();
            newNet.close();
            assertEquals(List.of(), List.copyOf(load.wrong));
            assertTrue(after > before, "work went on through the new transport");
        }
    }
}
