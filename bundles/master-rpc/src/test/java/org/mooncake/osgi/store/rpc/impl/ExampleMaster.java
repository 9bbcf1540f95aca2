package org.mooncake.osgi.store.rpc.impl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * The master of the examples in {@code docs/protocol.md}: answers with the values the document
 * states (a real master's put ids, incarnations and lease ends vary from run to run) and records
 * every call with its arguments, so a test can check what the server decoded.
 */
final class ExampleMaster implements MasterService {
    static final String CLIENT = "client-1";
    static final ObjectKey KEY = new ObjectKey("default", "k1");
    static final ObjectKey MISSING = new ObjectKey("default", "missing");
    static final SegmentEndpoint ENDPOINT = new SegmentEndpoint("tcp", "10.0.0.5:7001", "seg-1");
    /** The segment's grant key: bytes 0x00 to 0x1f (the key of the grant test vector). */
    static final GrantKey GRANT_KEY = new GrantKey(grantKeyBytes());
    static final SegmentDescriptor SEGMENT = new SegmentDescriptor("seg-1", CLIENT, 64L << 20, List.of(ENDPOINT),
            MemoryKind.HOST, GRANT_KEY);
    static final long INCARNATION = 0x1f2e3d4c5b6a7989L;
    static final long SIZE = 4096;
    /** The master's wall clock when it answers: 2026-01-01T00:00:00Z. */
    static final long SERVER_TIME_MS = 1_767_225_600_000L;
    /** The write grant ends 30 s after the put started (put.start.discard.timeout.ms). */
    static final PutTicket TICKET = new PutTicket(17, List.of(new ReplicaLocation("seg-1", List.of(ENDPOINT), 0, SIZE,
            DataGrant.sign(GRANT_KEY, "seg-1", true, 0, SIZE, SERVER_TIME_MS + 30_000))));
    /** An XXH3-64 with the top bit set: a Java long below zero, so a CBOR negative integer. */
    static final long CHECKSUM = 0xc4a1e2f3d5b60718L;
    static final long LEASE_ENDS_AT_MS = SERVER_TIME_MS + 5_000;
    static final ReadLease LEASE = new ReadLease(SIZE, CHECKSUM, ObjectDataType.GENERAL,
            List.of(new ReplicaLocation("seg-1", List.of(ENDPOINT), 0, SIZE,
                    DataGrant.sign(GRANT_KEY, "seg-1", false, 0, SIZE, LEASE_ENDS_AT_MS))),
            LEASE_ENDS_AT_MS);
    /** What the master says: the key as {@code ObjectKey.toString} writes it. */
    static final String NOT_FOUND_MESSAGE = "no object missing";

    private static byte[] grantKeyBytes() {
        byte[] bytes = new byte[32];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    /** One call as the server decoded it. */
    record Call(String method, List<Object> args) {
    }

    private final List<Call> calls = new ArrayList<>();

    private synchronized void record(String method, Object... args) {
        calls.add(new Call(method, Arrays.asList(args)));
    }

    synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    @Override
    public long heartbeat(String clientId) {
        record("heartbeat", clientId);
        return INCARNATION;
    }

    @Override
    public void leave(String clientId) {
        record("leave", clientId);
    }

    @Override
    public void mountSegment(SegmentDescriptor segment) {
        record("mountSegment", segment);
    }

    @Override
    public void updateSegmentEndpoints(SegmentDescriptor segment) {
        record("updateSegmentEndpoints", segment);
    }

    @Override
    public void unmountSegment(String clientId, String segmentName) {
        record("unmountSegment", clientId, segmentName);
    }

    @Override
    public PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config, boolean upsert) {
        record("putStart", clientId, key, sizeBytes, config, upsert);
        return TICKET;
    }

    @Override
    public void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {
        record("putEnd", clientId, key, putId, checksum, chunks);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        putRevoke(clientId, key, putId, false);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        record("putRevoke", clientId, key, putId, writesInDoubt);
    }

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        record("getReplicaList", key);
        if (!key.equals(KEY)) {
            throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, NOT_FOUND_MESSAGE);
        }
        return LEASE;
    }

    /** One call for the batch, whose keys are answered as {@link #getReplicaList} answers each. */
    @Override
    public List<OpResult<ReadLease>> getReplicaListBatch(List<ObjectKey> keys) {
        record("getReplicaListBatch", keys);
        return keys.stream().map(k -> k.equals(KEY) ? OpResult.ok(k.key(), LEASE)
                : OpResult.<ReadLease>failed(k.key(), new StoreException(ErrorCode.OBJECT_NOT_FOUND, NOT_FOUND_MESSAGE)))
                .toList();
    }

    @Override
    public boolean exists(ObjectKey key) {
        record("exists", key);
        return key.equals(KEY);
    }

    @Override
    public void remove(ObjectKey key, boolean force) {
        record("remove", key, force);
    }

    @Override
    public int removeByRegex(String tenant, Pattern keyPattern, boolean force) {
        record("removeByRegex", tenant, keyPattern.pattern(), force);
        return 0;
    }

    @Override
    public int removeAll(String tenant, boolean force) {
        record("removeAll", tenant, force);
        return 0;
    }

    @Override
    public Optional<ObjectInfo> queryKey(ObjectKey key) {
        record("queryKey", key);
        return Optional.empty();
    }

    @Override
    public MasterStats stats() {
        throw new UnsupportedOperationException("not an example");
    }

    @Override
    public List<SegmentStats> segments() {
        throw new UnsupportedOperationException("not an example");
    }
}
