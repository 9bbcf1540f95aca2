package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/** A segment offered over several transports; each reader takes the cheapest it can reach. */
class EndpointSelectionTest {
    private static ShmTransport shm() {
        return new ShmTransport(ShmTransport.in("/dev/shm"));
    }

    @Test
    void readersPreferSharedMemoryAndFallBackToTcp() throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        try (Arena arena = Arena.ofShared(); ShmTransport ownerShm = shm();
                TcpTransport ownerTcp = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
                ShmTransport readerShm = shm();
                TcpTransport readerTcp = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
                TcpTransport tcpOnlyNet = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000))) {
            EmbeddedStoreClient owner = EmbeddedStoreClient.create(master, List.of(ownerShm, ownerTcp), "owner", "default",
                    "shm", InstantSource.system());
            String segment = owner.mountNewSegment(1 << 20, arena);
            assertEquals(List.of("shm", "tcp"),
                    master.segments().stream().filter(s -> s.name().equals(segment)).findFirst().orElseThrow()
                            .protocol().lines().flatMap(p -> List.of(p.split(",")).stream()).toList());

            byte[] value = {1, 2, 3, 4, 5};
            EmbeddedStoreClient tcpOnly = EmbeddedStoreClient.create(master, List.of(tcpOnlyNet), "tcp-only", "default",
                    "tcp", InstantSource.system());
            tcpOnly.put("k", value);
            assertArrayEquals(value, tcpOnly.get("k"), "no shm transport here: tcp it is");

            EmbeddedStoreClient both = EmbeddedStoreClient.create(master, List.of(readerShm, readerTcp), "both",
                    "default", "tcp", InstantSource.system());
            ownerTcp.withdraw(segment);
            assertArrayEquals(value, both.get("k"), "shm is preferred, so tcp's absence does not matter");
            assertEquals(ErrorCode.TRANSFER_FAIL,
                    assertThrows(StoreException.class, () -> tcpOnly.get("k")).errorCode(), "and tcp really is gone");
            SegmentEndpoint elsewhere = new SegmentEndpoint("shm", "another-host|/dev/shm/x", "s");
            assertEquals(ErrorCode.TRANSFER_FAIL, assertThrows(StoreException.class,
                    () -> both.transports().pick("s", List.of(elsewhere), org.mooncake.osgi.store.spi.transport.TransferOp.READ)).errorCode());
            owner.unmountAll();
        }
    }
}
