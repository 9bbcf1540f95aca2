package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;

/** A master's absolute time read into the client's clock: localSend + (t - serverTime). */
class MasterClockTest {
    private static final long SERVER_NOW = 1_767_225_600_000L;

    @Test
    void aClientAheadOrBehindSeesTheSameTimeLeft() {
        long leaseEnd = SERVER_NOW + 10_000;
        assertEquals(SERVER_NOW + 60_000 + 10_000, new MasterClock(SERVER_NOW + 60_000, SERVER_NOW).toLocal(leaseEnd));
        assertEquals(SERVER_NOW - 60_000 + 10_000, new MasterClock(SERVER_NOW - 60_000, SERVER_NOW).toLocal(leaseEnd));
    }

    /** The answer left the master after the request left the client: the round trip shortens the lease, never lengthens it. */
    @Test
    void theRoundTripCountsAgainstTheClient() {
        long sent = 1_000;
        long answeredAfter = 40; // by the master's clock, 40 ms of the round trip had passed
        assertEquals(sent + 10_000 - answeredAfter,
                new MasterClock(sent, SERVER_NOW + answeredAfter).toLocal(SERVER_NOW + 10_000));
    }

    @Test
    void anOlderMasterThatDoesNotSayItsTimeLeavesTimesAsTheyAre() {
        assertEquals(SERVER_NOW, new MasterClock(5, 0).toLocal(SERVER_NOW));
    }

    @Test
    void aLeaseMovesItsEndOnlyAndKeepsItsGrants() {
        DataGrant grant = new DataGrant(false, 0, 4096, SERVER_NOW + 10_000, new byte[DataGrant.MAC_BYTES]);
        List<ReplicaLocation> replicas = List.of(new ReplicaLocation("seg-1", List.of(), 0, 4096, grant));
        ReadLease lease = new ReadLease(4096, 7, ObjectDataType.GENERAL, replicas, SERVER_NOW + 10_000);
        ReadLease local = new MasterClock(SERVER_NOW + 60_000, SERVER_NOW).toLocal(lease);
        assertEquals(new ReadLease(4096, 7, ObjectDataType.GENERAL, replicas, SERVER_NOW + 70_000), local);
        assertEquals(SERVER_NOW + 10_000, local.replicas().getFirst().grant().expiresAtMs(),
                "a grant is judged by the segment owner against the master's clock: unchanged");
        assertNull(new MasterClock(1, SERVER_NOW).toLocal((ReadLease) null));
    }

    @Test
    void aFarFutureDoesNotOverflow() {
        assertEquals(Long.MAX_VALUE, new MasterClock(Long.MAX_VALUE - 5, 1).toLocal(Long.MAX_VALUE));
    }
}
