package org.mooncake.osgi.store.rpc.impl;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentStats;

/**
 * The master as one authenticated connection may use it: every tenant named (in a key, a batch,
 * removeAll, removeByRegex) must be one of the identity's; every client id must be the identity's
 * (claimed at first use, see {@link ClientIdOwners}); mounting segments needs the {@code node}
 * role; stats need {@code admin}; segments lists only the identity's own. An {@code admin} passes
 * every check. A refusal is {@link AccessDenied} before the master is asked, so it changed nothing
 * (a batch is refused whole). In-process callers use the master itself and are trusted.
 */
final class GuardedMaster implements MasterService {
    private final MasterService master;
    private final PeerIdentity who;
    private final ClientIdOwners owners;
    private final boolean admin;

    GuardedMaster(MasterService master, PeerIdentity who, ClientIdOwners owners) {
        this.master = master;
        this.who = who;
        this.owners = owners;
        this.admin = who.is(PeerIdentity.Role.ADMIN);
    }

    private void client(String clientId) {
        if (!admin) {
            owners.claim(who.name(), clientId);
        }
    }

    private void tenant(String tenant) {
        if (!admin && !who.tenants().contains(tenant)) {
            throw new AccessDenied(who.name() + " may not use tenant " + tenant);
        }
    }

    private void key(ObjectKey key) {
        if (key != null) {
            tenant(key.tenant());
        }
    }

    private void keys(Collection<ObjectKey> keys) {
        if (keys != null) {
            keys.forEach(this::key);
        }
    }

    private void completions(Collection<PutCompletion> completions) {
        if (completions != null) {
            completions.forEach(c -> key(c.key()));
        }
    }

    private void role(PeerIdentity.Role role, String what) {
        if (!admin && !who.is(role)) {
            throw new AccessDenied(what + " needs the " + role.name().toLowerCase(java.util.Locale.ROOT)
                    + " role; " + who.name() + " has " + who.roles());
        }
    }

    @Override
    public long heartbeat(String clientId) {
        client(clientId);
        return master.heartbeat(clientId);
    }

    @Override
    public void leave(String clientId) {
        client(clientId);
        master.leave(clientId);
        owners.release(who.name(), clientId);
    }

    @Override
    public void mountSegment(SegmentDescriptor segment) {
        role(PeerIdentity.Role.NODE, "mounting a segment");
        client(segment.clientId());
        master.mountSegment(segment);
    }

    @Override
    public void updateSegmentEndpoints(SegmentDescriptor segment) {
        role(PeerIdentity.Role.NODE, "updating a segment");
        client(segment.clientId());
        master.updateSegmentEndpoints(segment);
    }

    @Override
    public void unmountSegment(String clientId, String segmentName) {
        client(clientId); // the master refuses a segment that is not this client's
        master.unmountSegment(clientId, segmentName);
    }

    @Override
    public PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config, boolean upsert) {
        client(clientId);
        key(key);
        return master.putStart(clientId, key, sizeBytes, config, upsert);
    }

    @Override
    public void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {
        client(clientId);
        key(key);
        master.putEnd(clientId, key, putId, checksum, chunks);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        client(clientId);
        key(key);
        master.putRevoke(clientId, key, putId);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        client(clientId);
        key(key);
        master.putRevoke(clientId, key, putId, writesInDoubt);
    }

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        key(key);
        return master.getReplicaList(key);
    }

    @Override
    public boolean exists(ObjectKey key) {
        key(key);
        return master.exists(key);
    }

    @Override
    public void remove(ObjectKey key, boolean force) {
        key(key);
        master.remove(key, force);
    }

    @Override
    public int removeByRegex(String tenant, Pattern keyPattern, boolean force) {
        tenant(tenant);
        return master.removeByRegex(tenant, keyPattern, force);
    }

    @Override
    public int removeAll(String tenant, boolean force) {
        tenant(tenant);
        return master.removeAll(tenant, force);
    }

    @Override
    public java.util.Optional<org.mooncake.osgi.store.master.TenantStats> tenantStats(String tenant) {
        tenant(tenant);
        return master.tenantStats(tenant);
    }

    @Override
    public List<OpResult<PutTicket>> putStartBatch(String clientId, List<ObjectKey> keys, List<Long> sizes,
            ReplicateConfig config, boolean upsert) {
        client(clientId);
        keys(keys);
        return master.putStartBatch(clientId, keys, sizes, config, upsert);
    }

    @Override
    public List<OpResult<Void>> putEndBatch(String clientId, List<PutCompletion> completions) {
        client(clientId);
        completions(completions);
        return master.putEndBatch(clientId, completions);
    }

    @Override
    public List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts) {
        client(clientId);
        completions(puts);
        return master.putRevokeBatch(clientId, puts);
    }

    @Override
    public List<OpResult<Void>> putRevokeBatch(String clientId, List<PutCompletion> puts, boolean writesInDoubt) {
        client(clientId);
        completions(puts);
        return master.putRevokeBatch(clientId, puts, writesInDoubt);
    }

    @Override
    public List<OpResult<ReadLease>> getReplicaListBatch(List<ObjectKey> keys) {
        keys(keys);
        return master.getReplicaListBatch(keys);
    }

    @Override
    public List<OpResult<Boolean>> existsBatch(List<ObjectKey> keys) {
        keys(keys);
        return master.existsBatch(keys);
    }

    @Override
    public List<ObjectState> lookupBatch(List<ObjectKey> keys) {
        keys(keys);
        return master.lookupBatch(keys);
    }

    @Override
    public Optional<ObjectInfo> queryKey(ObjectKey key) {
        key(key);
        return master.queryKey(key);
    }

    @Override
    public MasterStats stats() {
        role(PeerIdentity.Role.ADMIN, "master stats");
        return master.stats();
    }

    /** An admin sees every segment; anyone else those of the client ids it owns. */
    @Override
    public List<SegmentStats> segments() {
        List<SegmentStats> all = master.segments();
        return admin ? all : all.stream().filter(s -> owners.owns(who.name(), s.clientId())).toList();
    }
}
