package org.mooncake.osgi.store.rpc.impl;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
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
 * The master of another process, through the RPC protocol. Every call carries a deadline; an
 * error the master reports arrives as the same {@link StoreException} code; a broken or absent
 * connection is RPC_FAIL and the next call connects again (so a restarted master is picked up
 * without restarting the client). Thread-safe.
 */
public final class RemoteMasterService implements MasterService, AutoCloseable {
    /** Service property marking a remote master, so the RPC server never serves one. */
    public static final String REMOTE_PROPERTY = "mooncake.master.remote";

    private final InetSocketAddress address;
    private final long timeoutMs;
    private final int maxFrame;
    private final javax.net.ssl.SSLContext tls;
    private RpcConnection connection;

    /** A master reached in plain text. */
    public RemoteMasterService(InetSocketAddress address, long timeoutMs, int maxFrame) {
        this(address, timeoutMs, maxFrame, null);
    }

    /** A master reached over TLS with {@code tls} (the cluster's client certificate and CA), or plain text when null. */
    public RemoteMasterService(InetSocketAddress address, long timeoutMs, int maxFrame, javax.net.ssl.SSLContext tls) {
        this.address = address;
        this.timeoutMs = timeoutMs;
        this.maxFrame = maxFrame;
        this.tls = tls;
    }

    private synchronized RpcConnection connection() {
        if (connection == null || !connection.usable()) {
            try {
                RpcConnection c = new RpcConnection(address, (int) Math.min(timeoutMs, Integer.MAX_VALUE), maxFrame, tls);
                Messages.Response hello = c.call("HELLO", args(Frames.PROTOCOL_VERSION), timeoutMs);
                if (hello.code() != 0) {
                    c.close();
                    throw error(hello);
                }
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

    private JsonNode call(MasterOps.Op op, Object... values) {
        Messages.Response r = connection().call(op.name(), args(values), timeoutMs);
        if (r.code() != 0) {
            throw error(r);
        }
        return r.result();
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
        return call(new TypeReference<List<ObjectState>>() {
        }, MasterOps.Op.LOOKUP_BATCH, keys);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        call(MasterOps.Op.PUT_REVOKE, clientId, key, putId);
    }

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        return call(ReadLease.class, MasterOps.Op.GET_REPLICA_LIST, key);
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
        return call(new TypeReference<List<OpResult<PutTicket>>>() {
        }, MasterOps.Op.PUT_START_BATCH, clientId, keys, sizes, config, upsert);
    }

    @Override
    public List<OpResult<Void>> putEndBatch(String clientId, List<PutCompletion> completions) {
        return call(new TypeReference<List<OpResult<Void>>>() {
        }, MasterOps.Op.PUT_END_BATCH, clientId, completions);
    }

    @Override
    public List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts) {
        return call(new TypeReference<List<OpResult<Void>>>() {
        }, MasterOps.Op.PUT_REVOKE_BATCH, clientId, puts);
    }

    @Override
    public List<OpResult<ReadLease>> getReplicaListBatch(List<ObjectKey> keys) {
        return call(new TypeReference<List<OpResult<ReadLease>>>() {
        }, MasterOps.Op.GET_REPLICA_LIST_BATCH, keys);
    }

    @Override
    public List<OpResult<Boolean>> existsBatch(List<ObjectKey> keys) {
        return call(new TypeReference<List<OpResult<Boolean>>>() {
        }, MasterOps.Op.EXISTS_BATCH, keys);
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
        }
    }
}
