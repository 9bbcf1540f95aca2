package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.DataGrant.Check;
import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.MemoryKindStats;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/** The master signs a grant per replica for segments mounted with a key, and keeps space a late WRITE may reach. */
class DataGrantsTest {
    private static final long SEGMENT = 1 << 20;
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;
    private final GrantKey key = GrantKey.random();

    private void mountWithKey(String client, String segment) {
        m.heartbeat(client);
        m.mountSegment(new SegmentDescriptor(segment, client, SEGMENT,
                List.of(new SegmentEndpoint("tcp", "127.0.0.1:1", segment)), MemoryKind.HOST, key));
    }

    @Test
    void aPutTicketGrantsWritesAndALeaseGrantsReadsOfExactlyTheReplica() {
        mountWithKey("c1", "s1");
        long start = f.clock.millis();
        PutTicket t = m.putStart("c1", k("a"), 5000, ReplicateConfig.DEFAULT, false);
        ReplicaLocation w = t.replicas().getFirst();
        DataGrant wg = w.grant();
        assertEquals(start + MasterSettings.DEFAULTS.putStartDiscardTimeoutMs(), wg.expiresAtMs());
        assertEquals(Check.PERMITTED, wg.check(key, "s1", true, w.offset(), 5000, start));
        assertEquals(Check.WRONG_OPERATION, wg.check(key, "s1", false, w.offset(), 5000, start));
        assertEquals(Check.OUT_OF_RANGE, wg.check(key, "s1", true, w.offset() + 1, w.sizeBytes(), start));
        m.putEnd("c1", k("a"), t.putId(), 7);

        ReadLease lease = m.getReplicaList(k("a"));
        ReplicaLocation r = lease.replicas().getFirst();
        assertEquals(lease.leaseExpiresAtMs(), r.grant().expiresAtMs());
        assertEquals(Check.PERMITTED, r.grant().check(key, "s1", false, r.offset(), 5000, f.clock.millis()));
        assertEquals(Check.EXPIRED, r.grant().check(key, "s1", false, r.offset(), 5000, lease.leaseExpiresAtMs()));
        assertEquals(Check.FORGED, r.grant().check(GrantKey.random(), "s1", false, r.offset(), 5000, 0));
        assertNull(m.queryKey(k("a")).orElseThrow().replicas().getFirst().grant(), "an operator's look-up carries no grant");
    }

    @Test
    void aSegmentMountedWithoutAKeyGetsNoGrants() {
        f.mount("c1", "plain", SEGMENT);
        PutTicket t = m.putStart("c1", k("a"), 100, ReplicateConfig.DEFAULT, false);
        assertNull(t.replicas().getFirst().grant());
    }

    /**
     * The fault suite's finding: a WRITE to a stalled node timed out, the put was revoked and its
     * range given to the next put, and the stalled node later applied the stale WRITE over it.
     * A revoke in doubt keeps the range until the put's WRITE grants expire.
     */
    @Test
    void aRevokeInDoubtKeepsTheRangeUntilTheWriteGrantsExpire() {
        mountWithKey("c1", "s1");
        long whole = SEGMENT;
        PutTicket stale = m.putStart("c1", k("a"), whole, ReplicateConfig.DEFAULT, false);
        m.putRevoke("c1", k("a"), stale.putId(), true);
        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, assertThrows(StoreException.class,
                () -> m.putStart("c1", k("b"), whole, ReplicateConfig.DEFAULT, false)).errorCode());

        f.clock.advance(stale.replicas().getFirst().grant().expiresAtMs() - f.clock.millis() - 1);
        m.heartbeat("c1"); // alive: a dead client's segments would go, and the test with them
        m.runHousekeeping();
        assertEquals(whole, used(), "one ms before the grant expires the range is still held");
        f.clock.advance(1);
        m.heartbeat("c1");
        m.runHousekeeping();
        PutTicket next = m.putStart("c1", k("b"), whole, ReplicateConfig.DEFAULT, false);
        assertEquals(stale.replicas().getFirst().offset(), next.replicas().getFirst().offset());
    }

    @Test
    void aCertainFailureFreesTheRangeAtOnce() {
        mountWithKey("c1", "s1");
        PutTicket failed = m.putStart("c1", k("a"), SEGMENT, ReplicateConfig.DEFAULT, false);
        m.putRevoke("c1", k("a"), failed.putId(), false);
        assertEquals(0, used());
        m.putStart("c1", k("b"), SEGMENT, ReplicateConfig.DEFAULT, false);
    }

    private long used() {
        return m.stats().memoryKinds().stream().mapToLong(MemoryKindStats::usedBytes).sum();
    }
}
