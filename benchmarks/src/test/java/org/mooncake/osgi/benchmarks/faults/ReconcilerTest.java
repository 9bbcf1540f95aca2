package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.benchmarks.faults.OpLog.Entry;
import org.mooncake.osgi.benchmarks.faults.OpLog.Op;
import org.mooncake.osgi.benchmarks.faults.OpLog.Outcome;

/** The reconciliation on synthetic logs: each kind of finding is told apart, and every operation counts once. */
class ReconcilerTest {
    private final List<Entry> log = new ArrayList<>();
    private long seq;

    private void op(String worker, Op op, String key, long start, long end, Outcome outcome, String detail) {
        log.add(new Entry(worker, ++seq, op, key, start, end, outcome, detail));
    }

    private void put(String key, long start, String... segments) {
        op("c0g1", Op.PUT, key, start, start + 5, Outcome.OK, "0x1@" + String.join(",", segments));
    }

    private void getMissing(String key, long start) {
        op("c0g1", Op.GET, key, start, start + 5, Outcome.FAIL, "OBJECT_NOT_FOUND");
    }

    private static Fault storageKill(long at, String... segments) {
        return new Fault("storage-kill", "fault-storage-0", at, at + 100, List.of(segments), false);
    }

    @Test
    void aCleanRunReconcilesWithNothingLost() {
        put("a", 10, "s1");
        op("c0g1", Op.GET, "a", 20, 25, Outcome.OK, "0x1");
        op("c0g1", Op.PUT, "b", 30, 35, Outcome.FAIL, "NO_AVAILABLE_HANDLE");
        op("sweep", Op.CHECK, "a", 100, 101, Outcome.OK, "0x1");
        FaultReport r = Reconciler.reconcile(log, List.of());
        assertEquals(4, r.attempted(), "the sweep's reads count too");
        assertEquals(3, r.succeeded());
        assertEquals(Map.of("NO_AVAILABLE_HANDLE", 1L), r.failedByCode());
        assertEquals(0, r.lost());
        assertEquals(1L, r.objects().get("readable"));
        assertTrue(r.reconciles());
    }

    @Test
    void anAcknowledgedObjectMissingWithoutAFaultIsLost() {
        put("a", 10, "s1");
        getMissing("a", 50);
        op("sweep", Op.CHECK, "a", 100, 101, Outcome.FAIL, "OBJECT_NOT_FOUND");
        FaultReport r = Reconciler.reconcile(log, List.of(storageKill(5, "s1"))); // killed before the put: no excuse
        assertEquals(2, r.lost(), "the get and the sweep's read both found it gone");
        assertEquals(1L, r.objects().get("lost"));
        assertTrue(r.reconciles());
    }

    @Test
    void anObjectWhoseEveryReplicaDiedWithItsNodeIsDroppedNotLost() {
        put("a", 10, "s1");
        put("b", 10, "s1", "s2");
        getMissing("a", 50);
        getMissing("b", 50);
        FaultReport r = Reconciler.reconcile(log, List.of(storageKill(30, "s1")));
        assertEquals(1, r.lost(), "b had a replica on s2, which lived");
        assertEquals(1L, r.failedByCode().get("OBJECT_NOT_FOUND (dropped with its node)"));
        assertEquals(1L, r.objects().get("dropped with its node"));
        assertEquals(1L, r.objects().get("lost"));
    }

    @Test
    void objectsForgottenByAMasterRestartHaveTheirOwnColumn() {
        put("a", 10, "s1");
        op("sweep", Op.CHECK, "a", 100, 101, Outcome.FAIL, "OBJECT_NOT_FOUND");
        FaultReport r = Reconciler.reconcile(log, List.of(new Fault("master-restart", "fault-master", 40, 90, List.of(), true)));
        assertEquals(0, r.lost());
        assertEquals(1L, r.objects().get("forgotten by a master restart"));
    }

    @Test
    void aCorruptReadAndAHalfVisibleObjectAreCounted() {
        put("a", 10, "s1");
        op("c0g1", Op.GET, "a", 20, 25, Outcome.MISMATCH, "0x2");
        op("c0g1", Op.PUT, "b", 30, -1, Outcome.CUT_OFF, "");
        op("sweep", Op.CHECK, "b", 100, 101, Outcome.MISMATCH, "0x3");
        FaultReport r = Reconciler.reconcile(log, List.of());
        assertEquals(1, r.corrupt());
        assertEquals(1, r.halfVisible(), "an unacknowledged put read back as other bytes than its whole value");
        assertEquals(1, r.cutOff());
        assertEquals(1L, r.objects().get("corrupt"));
        assertTrue(r.reconciles());
    }

    @Test
    void aRemovedObjectThatIsGoneIsNeitherLostNorReadable() {
        put("a", 10, "s1");
        op("c0g1", Op.GET, "a", 20, 25, Outcome.OK, "0x1");
        op("c0g1", Op.REMOVE, "a", 30, 35, Outcome.OK, "-");
        getMissing("a", 32); // a get racing the remove
        FaultReport r = Reconciler.reconcile(log, List.of());
        assertEquals(0, r.lost());
        assertEquals(1L, r.objects().get("removed"));
        assertEquals(0L, r.objects().get("readable"));
    }

    @Test
    void aGetOverlappingARemoveOfItsKeyMayFindItGone() {
        put("a", 10, "s1");
        op("c0g1", Op.GET, "a", 40, 60, Outcome.FAIL, "OBJECT_NOT_FOUND");
        op("c0g1", Op.REMOVE, "a", 45, 50, Outcome.OK, "-"); // another thread of the client, during the get
        FaultReport r = Reconciler.reconcile(log, List.of());
        assertEquals(0, r.lost());
        assertEquals(1L, r.failedByCode().get("OBJECT_NOT_FOUND (removed)"));
    }

    @Test
    void faultsCountTheOperationsInFlightAndAClientKillOnlyItsOwn() {
        op("c0g1", Op.PUT, "a", 10, -1, Outcome.CUT_OFF, "");
        op("c1g1", Op.GET, "x", 10, 30, Outcome.OK, "0x1");
        FaultReport r = Reconciler.reconcile(log, List.of(
                new Fault("client-kill-put", "c0g1", 20, 40, List.of(), false),
                new Fault("storage-stall", "fault-storage-1", 25, -1, List.of(), false)));
        assertEquals(2, r.faultsWithPutInFlight());
        assertEquals(1, r.faultsWithGetInFlight(), "the kill of c0 did not land on c1's get");
        assertEquals(1, r.unrecovered());
        assertEquals(0L, r.recoverMsByKind().get("client-kill-put")[0], "20 ns is under a millisecond");
    }

    @Test
    void theLogReadsBackWhatWasWrittenAndSkipsAHalfWrittenLine() throws Exception {
        java.nio.file.Path f = java.nio.file.Files.createTempFile("oplog", ".log");
        try (OpLog w = new OpLog(f)) {
            w.begin("c0g1", 1, Op.PUT, "c0g1.1-4096-KVCACHE");
            w.end("c0g1", 1, Op.PUT, "c0g1.1-4096-KVCACHE", Outcome.OK, "0x00001000deadbeef@s1,s2");
            w.begin("c0g1", 2, Op.GET, "c0g1.1-4096-KVCACHE");
        }
        java.nio.file.Files.writeString(f, "E 99 c0g1 2 GE", java.nio.file.StandardOpenOption.APPEND);
        List<Entry> read = OpLog.read(List.of(f));
        assertEquals(2, read.size());
        assertEquals(List.of("s1", "s2"), read.get(0).segments());
        assertEquals(Outcome.CUT_OFF, read.get(1).outcome(), "its end never made it whole to the file");
        java.nio.file.Files.delete(f);
    }
}
