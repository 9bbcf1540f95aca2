package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
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

    /** A transport that reaches its own protocol's endpoints at a fixed cost and moves nothing. */
    private static Transport rated(String protocol, int cost) {
        return new Transport() {
            @Override
            public String protocol() {
                return protocol;
            }

            @Override
            public int cost(SegmentEndpoint endpoint) {
                return cost;
            }

            @Override
            public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
                return new SegmentEndpoint(protocol, "here", segmentName);
            }

            @Override
            public void withdraw(String segmentName) {
            }

            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                throw new AssertionError("nothing moves in this test");
            }
        };
    }

    @Test
    void aTransportTakesItsPlaceByTheCostItGivesNotByItsName() {
        Transports transports = new Transports();
        for (Transport t : List.of(rated("tcp", Transport.COST_NETWORK), rated("newcomer", Transport.COST_RDMA),
                rated("slower-stream", Transport.COST_NETWORK + 50), rated("twin", Transport.COST_NETWORK))) {
            transports.add(t);
        }
        SegmentEndpoint tcp = new SegmentEndpoint("tcp", "here", "s");
        SegmentEndpoint newcomer = new SegmentEndpoint("newcomer", "here", "s");
        SegmentEndpoint slower = new SegmentEndpoint("slower-stream", "here", "s");
        SegmentEndpoint twin = new SegmentEndpoint("twin", "here", "s");
        SegmentEndpoint unbound = new SegmentEndpoint("unbound", "here", "s");
        assertEquals(newcomer, transports.pick("s", List.of(tcp, newcomer), TransferOp.READ), "cheaper, though listed last");
        assertEquals(tcp, transports.pick("s", List.of(slower, tcp), TransferOp.READ), "dearer, though listed first");
        assertEquals(twin, transports.pick("s", List.of(unbound, twin, tcp), TransferOp.READ), "a tie goes to the segment's order");

        OwnSegment own = new OwnSegment("s", MemorySegment.NULL);
        for (Transport t : transports.all()) {
            own.serveVia(t);
        }
        assertEquals(List.of("newcomer", "tcp", "twin", "slower-stream"),
                own.descriptor("c").endpoints().stream().map(SegmentEndpoint::protocol).toList(),
                "own segments list their endpoints cheapest first");
    }
}
