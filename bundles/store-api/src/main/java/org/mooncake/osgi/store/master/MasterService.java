package org.mooncake.osgi.store.master;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The master: metadata and space allocation only, never on the data path. Every method is
 * thread-safe and either succeeds or throws a {@link org.mooncake.osgi.store.api.StoreException}
 * having changed nothing.
 */
@ProviderType
public interface MasterService {

    /**
     * Registers a client or refreshes its liveness; a client silent past client_ttl loses its
     * segments. Returns the master's incarnation: when it changes, the master restarted and
     * forgot everything, so the client mounts its segments again.
     */
    long heartbeat(String clientId);

    /**
     * A client that stops says goodbye: the master forgets it now rather than after client_ttl,
     * and drops any segment it still has mounted (since 1.2). Unknown clients are ignored. As when
     * the master declares a silent client dead, its unfinished puts are revoked at once (since
     * 2.1): their keys are free for a new put, their blocks stay reserved until
     * put_start_release_timeout (the writer may still be copying into them).
     */
    void leave(String clientId);

    void mountSegment(SegmentDescriptor segment);

    /**
     * Replaces the endpoints of a mounted segment and keeps every object in it: its client calls
     * this when a transport that serves the segment stops, or a new one starts serving it
     * (since 1.2). SEGMENT_NOT_FOUND when no such segment is mounted; INVALID_PARAMS when the
     * client or the size differ from the mounted segment's, or no endpoint is given.
     */
    void updateSegmentEndpoints(SegmentDescriptor segment);

    /** Withdraws a segment; objects whose last replica lived there disappear whole. */
    void unmountSegment(String clientId, String segmentName);

    /**
     * Phase one of a put: allocates replicas on distinct segments. Nothing is readable until
     * {@link #putEnd}. With {@code upsert} an existing object stays readable until then. Without
     * it, a key that holds a complete object is OBJECT_ALREADY_EXISTS and one with a put in
     * progress OBJECT_BEING_WRITTEN (since 2.1; both were OBJECT_ALREADY_EXISTS).
     */
    PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config, boolean upsert);

    /**
     * Phase two: the bytes of put {@code putId} are written and hash to {@code checksum}
     * (XXH3-64, as Checksums.of in org.mooncake.osgi.store.memory computes it); the object
     * becomes readable. INVALID_WRITE if that put is no longer the key's pending put.
     */
    default void putEnd(String clientId, ObjectKey key, long putId, long checksum) {
        putEnd(clientId, key, putId, checksum, null);
    }

    /**
     * {@link #putEnd(String, ObjectKey, long, long)} for an object that may be of more than one
     * checksum chunk: {@code chunks} (null for an object checked whole) are kept for readers of
     * ranges, and {@code checksum} must be their combination (see {@link ChunkChecksums}; INVALID_PARAMS
     * otherwise, or when they do not fit the object's size). Since 2.1.
     */
    void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks);

    /** Abandons put {@code putId} and frees its space. */
    void putRevoke(String clientId, ObjectKey key, long putId);

    /**
     * {@link #putRevoke(String, ObjectKey, long)}, telling whether a WRITE of the put may still
     * land ({@code writesInDoubt}: a transfer timed out rather than failed; see
     * TransferStatus.inDoubt). Its space is then kept until the put's WRITE grants have expired,
     * so a late WRITE (refused once its grant expired) never lands in another object (since 3.1;
     * the default frees it now).
     */
    default void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        putRevoke(clientId, key, putId);
    }

    /** The replicas of a readable object, granting or extending a read lease. */
    ReadLease getReplicaList(ObjectKey key);

    /** Whether a readable object has this key; grants a read lease as upstream does. */
    boolean exists(ObjectKey key);

    void remove(ObjectKey key, boolean force);

    int removeByRegex(String tenant, Pattern keyPattern, boolean force);

    int removeAll(String tenant, boolean force);

    // ---- batches: one result per key, in input order; one key's failure spares the others ----

    /** {@link #putStart} for many keys with one configuration; {@code sizes} pairs with {@code keys}. */
    default List<OpResult<PutTicket>> putStartBatch(String clientId, List<ObjectKey> keys, List<Long> sizes,
            ReplicateConfig config, boolean upsert) {
        StoreException.require(keys.size() == sizes.size(), "keys and sizes differ in number");
        List<OpResult<PutTicket>> out = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            long size = sizes.get(i);
            out.add(each(keys.get(i), key -> putStart(clientId, key, size, config, upsert)));
        }
        return out;
    }

    default List<OpResult<Void>> putEndBatch(String clientId, List<PutCompletion> completions) {
        return completions.stream().map(c -> each(c.key(), k -> {
            putEnd(clientId, k, c.putId(), c.checksum(), c.chunks());
            return (Void) null;
        })).toList();
    }

    default List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts) {
        return putRevokeBatch(clientId, puts, false);
    }

    /** {@link #putRevoke(String, ObjectKey, long, boolean)} for many puts (since 3.1). */
    default List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts, boolean writesInDoubt) {
        return puts.stream().map(c -> each(c.key(), k -> {
            putRevoke(clientId, k, c.putId(), writesInDoubt);
            return (Void) null;
        })).toList();
    }

    default List<OpResult<ReadLease>> getReplicaListBatch(List<ObjectKey> keys) {
        return keys.stream().map(k -> each(k, this::getReplicaList)).toList();
    }

    default List<OpResult<Boolean>> existsBatch(List<ObjectKey> keys) {
        return keys.stream().map(k -> each(k, this::exists)).toList();
    }

    /**
     * What each key holds now, one state per key in input order, granting no lease and counting
     * no hit or miss (a scheduler's look-up is not a read). Since 2.1; the default asks
     * {@link #queryKey} key by key.
     */
    default List<ObjectState> lookupBatch(List<ObjectKey> keys) {
        return keys.stream().map(k -> queryKey(k).map(i -> switch (i.state()) {
            case "COMPLETE" -> ObjectState.READABLE;
            case "PROCESSING" -> ObjectState.WRITING;
            default -> ObjectState.ABSENT;
        }).orElse(ObjectState.ABSENT)).toList();
    }

    private static <T> OpResult<T> each(ObjectKey key, java.util.function.Function<ObjectKey, T> op) {
        try {
            return OpResult.ok(key.key(), op.apply(key));
        } catch (StoreException e) {
            return OpResult.failed(key.key(), e);
        }
    }

    /** Administrative look-up; grants no lease. */
    Optional<ObjectInfo> queryKey(ObjectKey key);

    MasterStats stats();

    /**
     * What one tenant holds now, for its operator (since 3.1). An administrative call that may
     * walk every object; empty where this master cannot say (the default, and a remote master).
     */
    default Optional<TenantStats> tenantStats(String tenant) {
        return Optional.empty();
    }

    List<SegmentStats> segments();
}
