package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A batch longer than the master's {@code max.batch.keys} is sent in parts that fit, as the
 * master's HELLO says its limit (an older master that does not say is taken to allow 65,536), and
 * its results come back as one list in the caller's order.
 */
@Timeout(60)
class BatchSplittingTest {
    private static final int LIMIT = 4;
    private static final String CLIENT = "client-1";

    private final StoreMaster master;
    private final MasterRpcServer server;
    private final RemoteMasterService remote;

    BatchSplittingTest() throws IOException {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
        server = new MasterRpcServer(ServerConfig.plain(0, 1 << 20).withLimits(LIMIT, 30_000, 600_000), master);
        remote = new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 5_000, 1 << 20);
    }

    @AfterEach
    void close() throws IOException {
        remote.close();
        server.close();
    }

    private static List<ObjectKey> keys(int n) {
        return IntStream.range(0, n).mapToObj(i -> ObjectKey.of("k" + i)).toList();
    }

    private static <T> List<String> keysOf(List<OpResult<T>> results) {
        return results.stream().map(OpResult::key).toList();
    }

    @Test
    void everyBatchOperationTakesMoreKeysThanTheLimitAndAnswersInOrder() {
        remote.mountSegment(new SegmentDescriptor("seg-1", CLIENT, 1 << 20, new SegmentEndpoint("tcp", "127.0.0.1:1", "seg-1")));
        List<ObjectKey> keys = keys(11);
        List<String> names = keys.stream().map(ObjectKey::key).toList();

        List<OpResult<PutTicket>> started = remote.putStartBatch(CLIENT, keys, Collections.nCopies(11, 4096L),
                ReplicateConfig.DEFAULT, false);
        assertEquals(names, keysOf(started));
        started.forEach(r -> assertTrue(r.isOk(), r.toString()));
        List<PutCompletion> done = IntStream.range(0, 9)
                .mapToObj(i -> new PutCompletion(keys.get(i), started.get(i).value().putId(), i, null)).toList();
        List<OpResult<Void>> ended = remote.putEndBatch(CLIENT, done);
        assertEquals(names.subList(0, 9), keysOf(ended));
        ended.forEach(r -> assertTrue(r.isOk(), r.toString()));
        List<PutCompletion> revoked = IntStream.range(9, 11)
                .mapToObj(i -> new PutCompletion(keys.get(i), started.get(i).value().putId(), 0, null)).toList();
        remote.putRevokeBatch(CLIENT, revoked).forEach(r -> assertTrue(r.isOk(), r.toString()));

        List<ObjectKey> asked = keys(13); // k11, k12: never written
        List<OpResult<Boolean>> exist = remote.existsBatch(asked);
        assertEquals(asked.stream().map(ObjectKey::key).toList(), keysOf(exist));
        assertEquals(IntStream.range(0, 13).mapToObj(i -> i < 9).toList(), exist.stream().map(OpResult::value).toList());
        List<OpResult<ReadLease>> leases = remote.getReplicaListBatch(asked);
        assertEquals(IntStream.range(0, 13).mapToObj(i -> i < 9 ? ErrorCode.OK : ErrorCode.OBJECT_NOT_FOUND).toList(),
                leases.stream().map(OpResult::error).toList());
        assertEquals(8L, leases.get(8).value().checksum(), "the ninth key's own lease");
        assertEquals(IntStream.range(0, 13).mapToObj(i -> i < 9 ? ObjectState.READABLE : ObjectState.ABSENT).toList(),
                remote.lookupBatch(asked));
    }

    @Test
    void aBatchWithinTheLimitIsOneRequestAndAnEmptyOneStillAsks() throws IOException {
        try (StandInMaster older = new StandInMaster(r -> r.op().equals("HELLO") ? StandInMaster.olderHello(r).withMaxBatchKeys(LIMIT)
                : answerEachKey(r));
                RemoteMasterService client = new RemoteMasterService(older.address(), 5_000, 1 << 20)) {
            assertEquals(LIMIT, client.existsBatch(keys(LIMIT)).size());
            assertEquals(0, client.existsBatch(List.of()).size());
            assertEquals(List.of(LIMIT, 0), batchSizes(older));
        }
    }

    @Test
    void anOlderMasterThatDoesNotSayItsLimitIsTakenToAllow65536() throws IOException {
        try (StandInMaster older = new StandInMaster(r -> r.op().equals("HELLO") ? StandInMaster.olderHello(r)
                : answerEachKey(r));
                RemoteMasterService client = new RemoteMasterService(older.address(), 5_000, 1 << 20)) {
            assertEquals(65_536, client.maxBatchKeys());
        }
        assertEquals(LIMIT, remote.maxBatchKeys(), "what this master's HELLO said");
    }

    /**
     * When a later part fails whole, the parts done keep their results (a started put can be ended
     * or revoked) and every key from the failed part on carries its error; a first part that fails
     * fails the call, as an unsplit batch would.
     */
    @Test
    void aFailedPartFailsItsKeysAndThoseAfterItButNotTheDoneOnes() throws IOException {
        try (StandInMaster failing = new StandInMaster(r -> switch (r.op()) {
            case "HELLO" -> StandInMaster.olderHello(r).withMaxBatchKeys(2);
            default -> r.args().get(0).get(0).get("key").asText().equals("k2")
                    ? new Messages.Response(r.id(), ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS.code(), "busy", null)
                    : answerEachKey(r);
        }); RemoteMasterService client = new RemoteMasterService(failing.address(), 5_000, 1 << 20)) {
            List<OpResult<Boolean>> results = client.existsBatch(keys(5));
            assertEquals(List.of(ErrorCode.OK, ErrorCode.OK, ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS,
                    ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS),
                    results.stream().map(OpResult::error).toList());
            assertEquals(List.of("k0", "k1", "k2", "k3", "k4"), keysOf(results));
            assertEquals(List.of(2, 2), batchSizes(failing), "nothing is sent after the failed part");
            StoreException e = assertThrows(StoreException.class, () -> client.existsBatch(keys(5).subList(2, 5)));
            assertEquals(ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS, e.errorCode());
        }
    }

    @Test
    void aPartAnsweredWithTooFewResultsFailsItsKeysRatherThanShiftingTheOthers() {
        List<OpResult<Boolean>> results = BatchParts.send(5, 2, i -> "k" + i,
                (from, to) -> from == 0 ? List.of(OpResult.ok("k0", true), OpResult.ok("k1", true))
                        : List.of(OpResult.ok("k" + from, true)));
        assertEquals(List.of("k0", "k1", "k2", "k3", "k4"), keysOf(results));
        assertEquals(List.of(ErrorCode.OK, ErrorCode.OK, ErrorCode.RPC_FAIL, ErrorCode.RPC_FAIL, ErrorCode.RPC_FAIL),
                results.stream().map(OpResult::error).toList());
    }

    /** Each key of an EXISTS_BATCH exists. */
    private static Messages.Response answerEachKey(Messages.Request r) {
        List<OpResult<Boolean>> results = new java.util.ArrayList<>();
        for (JsonNode key : r.args().get(0)) {
            results.add(OpResult.ok(key.get("key").asText(), true));
        }
        return new Messages.Response(r.id(), 0, null, Messages.CBOR.valueToTree(results));
    }

    private static List<Integer> batchSizes(StandInMaster m) {
        return m.requests().stream().filter(r -> !r.op().equals("HELLO")).map(r -> r.args().get(0).size()).toList();
    }
}
