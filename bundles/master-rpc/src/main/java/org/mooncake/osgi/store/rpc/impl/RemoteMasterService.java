package org.mooncake.osgi.store.rpc.impl;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentStats;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * The master of another process, through the RPC protocol. Every call carries its timeout; an
 * error the master reports arrives as the same {@link StoreException} code; a broken or absent
 * connection is RPC_FAIL and the next call connects again (so a restarted master is picked up
 * without restarting the client). A lease's end arrives in this process's clock
 * ({@link MasterClock}), so a client whose clock differs from the master's reads as any other. A
 * batch longer than the master's limit (told by HELLO) is sent in parts, its results in order.
 * Thread-safe.
 */
public final class RemoteMasterService implements MasterService, AutoCloseable {
    /** Service property marking a remote master, so the RPC server never serves one. */
    public static final String REMOTE_PROPERTY = "mooncake.master.remote";

    private final InetSocketAddress address;
    private final long timeoutMs;
    private final int maxFrame;
    private final javax.net.ssl.SSLContext tls;
    private final InstantSource clock;
    /** An access token sent at HELLO (a master with auth.tokens.file takes the identity from it); null: none. */
    private volatile String token;
    private RpcConnection connection;
    /** The most keys the connected master takes in one batch. */
    private int maxBatchKeys = MasterOps.DEFAULT_MAX_BATCH;

    /** A master reached in plain text. */
    public RemoteMasterService(InetSocketAddress address, long timeoutMs, int maxFrame) {
        this(address, timeoutMs, maxFrame, null);
    }

    /** A master reached over TLS with {@code tls} (the cluster's client certificate and CA), or plain text when null. */
    public RemoteMasterService(InetSocketAddress address, long timeoutMs, int maxFrame, javax.net.ssl.SSLContext tls) {
        this(address, timeoutMs, maxFrame, tls, InstantSource.system());
    }

    /** The same with this process's wall clock {@code clock}, which the leases' ends are converted into. */
    RemoteMasterService(InetSocketAddress address, long timeoutMs, int maxFrame, javax.net.ssl.SSLContext tls,
            InstantSource clock) {
        this.address = address;
        this.timeoutMs = timeoutMs;
        this.maxFrame = maxFrame;
        this.tls = tls;
        this.clock = clock;
    }

    /** Identifies this client by {@code accessToken} at every HELLO from now on (null: no token). */
    public RemoteMasterService withToken(String accessToken) {
        this.token = accessToken;
        return this;
    }

    private synchronized RpcConnection connection() {
        if (connection == null || !connection.usable()) {
            try {
                RpcConnection c = new RpcConnection(address, (int) Math.min(timeoutMs, Integer.MAX_VALUE), maxFrame, tls);
                String t = token;
                Messages.Response hello = c.call("HELLO",
                        t == null ? args(Frames.PROTOCOL_VERSION) : args(Frames.PROTOCOL_VERSION, t), timeoutMs);
                if (hello.code() != 0) {
                    c.close();
                    throw error(hello);
                }
                // an older master does not say, and takes the default
                Integer limit = hello.maxBatchKeys();
                maxBatchKeys = limit != null && limit > 0 ? limit : MasterOps.DEFAULT_MAX_BATCH;
                connection = c;
            } catch (IOException e) {
                throw new StoreException(ErrorCode.RPC_FAIL, "cannot reach the master at " + address + ": " + e);
            }
        }
        return connection;
    }

    private static ArrayNode args(Object... values) {
        ArrayNode a = Messages.CBOR.createArrayNode();
        for (Object v : values) {
            a.add(Messages.CBOR.valueToTree(v));
        }
        return a;
    }

    /**
     * The master's error as the same code; one this version does not know (a newer master's)
     * becomes INTERNAL_ERROR with the number in its message, and fails just that call.
     */
    static StoreException error(Messages.Response r) {
        if (!ErrorCode.isKnown(r.code())) {
            return new StoreException(ErrorCode.INTERNAL_ERROR,
                    "the master answered error code " + r.code() + ", unknown to this client: " + r.message());
        }
        return new StoreException(ErrorCode.ofCode(r.code()), r.message());
    }

    /** A result, and the master's clock as of its answer. */
    private record Answer(JsonNode result, MasterClock clock) {
    }

    private Answer exchange(MasterOps.Op op, Object... values) {
        RpcConnection c = connection();
        long sentAtMs = clock.millis();
        Messages.Response r = c.call(op.name(), args(values), timeoutMs);
        if (r.code() != 0) {
            throw error(r);
        }
        return new Answer(r.result(), new MasterClock(sentAtMs, r.serverTimeMs()));
    }

    private JsonNode call(MasterOps.Op op, Object... values) {
        return exchange(op, values).result();
    }

    /** The batch limit of the master, connecting to learn it. */
    synchronized int maxBatchKeys() {
        connection();
        return maxBatchKeys;
    }

    private <R> List<OpResult<R>> inParts(int n, IntFunction<String> keyAt, BatchParts.Part<R> part) {
        return BatchParts.send(n, maxBatchKeys(), keyAt, part);
    }

    private static List<OpResult<ReadLease>> toLocal(List<OpResult<ReadLease>> results, MasterClock clock) {
        if (results == null) {
            throw new StoreException(ErrorCode.RPC_FAIL, "the master answered a batch with no results");
        }
        return results.stream().map(r -> r.isOk() ? OpResult.ok(r.key(), clock.toLocal(r.value())) : r).toList();
    }

    private <T> T call(Class<T> type, MasterOps.Op op, Object... values) {
        return convert(call(op, values), Messages.CBOR.constructType(type));
    }

    private <T> T call(TypeReference<T> type, MasterOps.Op op, Object... values) {
        return convert(call(op, values), Messages.CBOR.getTypeFactory().constructType(type));
    }

    private static <T> T convert(JsonNode node, com.fasterxml.jackson.databind.JavaType type) {
        try {
            return node == null || node.isNull() ? null : Messages.CBOR.readerFor(type).readValue(node);
        } catch (IOException e) {
            throw new StoreException(ErrorCode.RPC_FAIL, "the master's answer is malformed: " + e.getMessage());
        }
    }

    @Override
    public long heartbeat(String clientId) {
        return call(Long.class, MasterOps.Op.HEARTBEAT, clientId);
    }

    @Override
    public void leave(String clientId) {
        call(MasterOps.Op.LEAVE, clientId);
    }

    @Override
    public void mountSegment(SegmentDescriptor segment) {
        call(MasterOps.Op.MOUNT_SEGMENT, segment);
    }

    @Override
    public void updateSegmentEndpoints(SegmentDescriptor segment) {
        call(MasterOps.Op.UPDATE_SEGMENT_ENDPOINTS, segment);
    }

    @Override
    public void unmountSegment(String clientId, String segmentName) {
        call(MasterOps.Op.UNMOUNT_SEGMENT, clientId, segmentName);
    }

    @Override
    public PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config, boolean upsert) {
        return call(PutTicket.class, MasterOps.Op.PUT_START, clientId, key, sizeBytes, config, upsert);
    }

    @Override
    public void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {
        if (chunks == null) {
            call(MasterOps.Op.PUT_END, clientId, key, putId, checksum);
        } else {
            call(MasterOps.Op.PUT_END, clientId, key, putId, checksum, chunks);
        }
    }

    @Override
    public List<ObjectState> lookupBatch(List<ObjectKey> keys) {
        int limit = maxBatchKeys();
        List<ObjectState> out = new ArrayList<>(keys.size());
        for (int from = 0; from < keys.size() || from == 0; from += limit) {
            out.addAll(call(new TypeReference<List<ObjectState>>() {
            }, MasterOps.Op.LOOKUP_BATCH, keys.subList(from, Math.min(keys.size(), from + limit))));
        }
        return out;
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        call(MasterOps.Op.PUT_REVOKE, clientId, key, putId);
    }

    /** Sends the flag only when set: the common frame stays as it was (and as docs/protocol.md shows it). */
    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        if (writesInDoubt) {
            call(MasterOps.Op.PUT_REVOKE, clientId, key, putId, true);
        } else {
            call(MasterOps.Op.PUT_REVOKE, clientId, key, putId);
        }
    }

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        Answer a = exchange(MasterOps.Op.GET_REPLICA_LIST, key);
        return a.clock().toLocal(convert(a.result(), Messages.CBOR.constructType(ReadLease.class)));
    }

    @Override
    public boolean exists(ObjectKey key) {
        return call(Boolean.class, MasterOps.Op.EXISTS, key);
    }

    @Override
    public void remove(ObjectKey key, boolean force) {
        call(MasterOps.Op.REMOVE, key, force);
    }

    @Override
    public int removeByRegex(String tenant, Pattern keyPattern, boolean force) {
        return call(Integer.class, MasterOps.Op.REMOVE_BY_REGEX, tenant, keyPattern.pattern(), force);
    }

    @Override
    public int removeAll(String tenant, boolean force) {
        return call(Integer.class, MasterOps.Op.REMOVE_ALL, tenant, force);
    }

    @Override
    public Optional<ObjectInfo> queryKey(ObjectKey key) {
        return Optional.ofNullable(call(ObjectInfo.class, MasterOps.Op.QUERY_KEY, key));
    }

    @Override
    public MasterStats stats() {
        return call(MasterStats.class, MasterOps.Op.STATS);
    }

    @Override
    public List<SegmentStats> segments() {
        return call(new TypeReference<List<SegmentStats>>() {
        }, MasterOps.Op.SEGMENTS);
    }

    @Override
    public List<OpResult<PutTicket>> putStartBatch(String clientId, List<ObjectKey> keys, List<Long> sizes,
            ReplicateConfig config, boolean upsert) {
        StoreException.require(keys.size() == sizes.size(), "keys and sizes differ in number");
        return inParts(keys.size(), i -> keys.get(i).key(), (from, to) -> call(
                new TypeReference<List<OpResult<PutTicket>>>() {
                }, MasterOps.Op.PUT_START_BATCH, clientId, keys.subList(from, to), sizes.subList(from, to), config,
                upsert));
    }

    @Override
    public List<OpResult<Void>> putEndBatch(String clientId, List<PutCompletion> completions) {
        return inParts(completions.size(), i -> completions.get(i).key().key(), (from, to) -> call(
                new TypeReference<List<OpResult<Void>>>() {
                }, MasterOps.Op.PUT_END_BATCH, clientId, completions.subList(from, to)));
    }

    @Override
    public List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts) {
        return putRevokeBatch(clientId, puts, false);
    }

    /** Sends the flag only when set: the common frame stays as it was. */
    @Override
    public List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts, boolean writesInDoubt) {
        TypeReference<List<OpResult<Void>>> results = new TypeReference<>() {
        };
        return inParts(puts.size(), i -> puts.get(i).key().key(), (from, to) -> writesInDoubt
                ? call(results, MasterOps.Op.PUT_REVOKE_BATCH, clientId, puts.subList(from, to), true)
                : call(results, MasterOps.Op.PUT_REVOKE_BATCH, clientId, puts.subList(from, to)));
    }

    @Override
    public List<OpResult<ReadLease>> getReplicaListBatch(List<ObjectKey> keys) {
        return inParts(keys.size(), i -> keys.get(i).key(), (from, to) -> {
            Answer a = exchange(MasterOps.Op.GET_REPLICA_LIST_BATCH, keys.subList(from, to));
            return toLocal(convert(a.result(), Messages.CBOR.getTypeFactory().constructType(
                    new TypeReference<List<OpResult<ReadLease>>>() {
                    })), a.clock());
        });
    }

    @Override
    public List<OpResult<Boolean>> existsBatch(List<ObjectKey> keys) {
        return inParts(keys.size(), i -> keys.get(i).key(), (from, to) -> call(
                new TypeReference<List<OpResult<Boolean>>>() {
                }, MasterOps.Op.EXISTS_BATCH, keys.subList(from, to)));
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
        }
    }
}
