package org.mooncake.osgi.store.master;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The master: metadata and space allocation only, never on the data path. Every method is
 * thread-safe and either succeeds or throws a {@link org.mooncake.osgi.store.api.StoreException}
 * having changed nothing.
 */
@ProviderType
public interface MasterService {

    /** Registers a client or refreshes its liveness. A client silent past client_ttl loses its segments. */
    void heartbeat(String clientId);

    void mountSegment(SegmentDescriptor segment);

    /** Withdraws a segment; objects whose last replica lived there disappear whole. */
    void unmountSegment(String clientId, String segmentName);

    /**
     * Phase one of a put: allocates replicas on distinct segments. Nothing is readable until
     * {@link #putEnd}. With {@code upsert} an existing object stays readable until then.
     */
    PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config, boolean upsert);

    /**
     * Phase two: the bytes of put {@code putId} are written and match {@code crc32c}; the object
     * becomes readable. INVALID_WRITE if that put is no longer the key's pending put.
     */
    void putEnd(String clientId, ObjectKey key, long putId, int crc32c);

    /** Abandons put {@code putId} and frees its space. */
    void putRevoke(String clientId, ObjectKey key, long putId);

    /** The replicas of a readable object, granting or extending a read lease. */
    ReadLease getReplicaList(ObjectKey key);

    /** Whether a readable object has this key; grants a read lease as upstream does. */
    boolean exists(ObjectKey key);

    void remove(ObjectKey key, boolean force);

    int removeByRegex(String tenant, Pattern keyPattern, boolean force);

    int removeAll(String tenant, boolean force);

    /** Administrative look-up; grants no lease. */
    Optional<ObjectInfo> queryKey(ObjectKey key);

    MasterStats stats();

    List<SegmentStats> segments();
}
