package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.master.TenantStats;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The master as an OSGi service. One scheduler thread owns eviction rounds and housekeeping;
 * any thread may call the service. Eviction policies bind and unbind at any time: each round
 * plans with whichever is selected when it starts.
 *
 * <p>Immediate: it holds every object's metadata, so it lives as long as its bundle and
 * configuration do. As a delayed component DS dropped it, and the store with it, as soon as its
 * last user let go of the service (an admin endpoint being reconfigured, say).
 */
@Component(service = MasterService.class, immediate = true, configurationPid = MasterComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MasterComponent.Config.class)
public final class MasterComponent implements MasterService {
    public static final String PID = "org.mooncake.osgi.store.master";
    private static final System.Logger LOG = System.getLogger(MasterComponent.class.getName());

    @ObjectClassDefinition(name = "Mooncake master", description = "Metadata, allocation, leases and eviction")
    public @interface Config {
        @AttributeDefinition(description = "Read lease granted by get/exists, ms (upstream default_kv_lease_ttl)")
        long kv_lease_ttl_ms() default 10_000;

        @AttributeDefinition(description = "Soft pin lifetime when a put gives none, ms")
        long kv_soft_pin_ttl_ms() default 1_800_000;

        @AttributeDefinition(description = "Longest soft pin a put may ask for, ms")
        long max_kv_soft_pin_ttl_ms() default 86_400_000;

        @AttributeDefinition(description = "Whether pass 2 may evict soft-pinned objects")
        boolean allow_evict_soft_pinned_objects() default true;

        @AttributeDefinition(description = "Fraction of capacity freed per round at least, (0, 1]")
        double eviction_ratio() default 0.05;

        @AttributeDefinition(description = "Used fraction above which a round runs, (0, 1]")
        double eviction_high_watermark_ratio() default 0.90;

        @AttributeDefinition(description = "How often the eviction loop checks the watermark, ms")
        long eviction_interval_ms() default 10;

        @AttributeDefinition(description = "A client silent this long loses its segments, ms")
        long client_ttl_ms() default 10_000;

        @AttributeDefinition(description = "After this, another client may take over an unfinished put, ms")
        long put_start_discard_timeout_ms() default 30_000;

        @AttributeDefinition(description = "After this, an unfinished put's space is reclaimed, ms")
        long put_start_release_timeout_ms() default 600_000;

        @AttributeDefinition(description = "Replica placement: RANDOM or FREE_RATIO_FIRST")
        AllocationStrategy allocation_strategy() default AllocationStrategy.RANDOM;

        @AttributeDefinition(description = "Metadata shards, a power of two (read at start only)")
        int shards() default 1024;

        @AttributeDefinition(description = "Name of the eviction policy to use; empty: the highest-ranked one")
        String eviction_policy() default "";

        @AttributeDefinition(description = "A HIDDEN_STATE object unread and unwritten this long is removed, ms (0: never)")
        long hidden_state_ttl_ms() default 0;

        @AttributeDefinition(description = "Fraction of capacity one tenant's HIDDEN_STATE objects may hold before its"
                + " least recently used ones are evicted, (0, 1] (1: no cap)")
        double hidden_state_tenant_share_max() default 1.0;
    }

    private final PolicySelector policies = new PolicySelector();
    private final StoreMaster master;
    private final ScheduledExecutorService scheduler;
    private volatile long intervalMs;

    @Activate
    public MasterComponent(Config config) {
        MasterSettings settings;
        try {
            settings = toSettings(config);
        } catch (StoreException e) {
            LOG.log(Level.ERROR, "invalid master configuration, starting with defaults: " + e.getMessage());
            settings = MasterSettings.DEFAULTS;
        }
        this.master = new StoreMaster(settings, InstantSource.system(), policies);
        this.intervalMs = Math.max(1, config.eviction_interval_ms());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mooncake-master-maintenance");
            t.setDaemon(true);
            return t;
        });
        scheduleEviction();
        scheduler.scheduleWithFixedDelay(this::safeHousekeeping, 1000, 1000, TimeUnit.MILLISECONDS);
    }

    static MasterSettings toSettings(Config c) {
        return new MasterSettings(c.kv_lease_ttl_ms(), c.kv_soft_pin_ttl_ms(), c.max_kv_soft_pin_ttl_ms(),
                c.allow_evict_soft_pinned_objects(), c.eviction_ratio(), c.eviction_high_watermark_ratio(),
                c.client_ttl_ms(), c.put_start_discard_timeout_ms(), c.put_start_release_timeout_ms(),
                c.allocation_strategy(), c.shards(), c.eviction_policy(),
                new MasterSettings.HiddenStateLimits(c.hidden_state_ttl_ms(), c.hidden_state_tenant_share_max()));
    }

    private void scheduleEviction() {
        long every = intervalMs;
        scheduler.schedule(() -> {
            try {
                master.runEvictionRound();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "eviction round failed", e);
            }
            if (!scheduler.isShutdown()) {
                scheduleEviction();
            }
        }, every, TimeUnit.MILLISECONDS);
    }

    private void safeHousekeeping() {
        try {
            master.runHousekeeping();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "housekeeping failed", e);
        }
    }

    /** A bad update is rejected whole and the running settings stay. */
    @Modified
    void modified(Config config) {
        try {
            master.update(toSettings(config));
            intervalMs = Math.max(1, config.eviction_interval_ms());
            LOG.log(Level.INFO, "master configuration updated");
            String missing = policies.preferredMissing();
            if (missing != null) {
                LOG.log(Level.WARNING, "eviction.policy names {0}, which is not deployed; {1} plans until it is",
                        missing, activeName());
            }
        } catch (StoreException e) {
            LOG.log(Level.ERROR, "rejected master configuration, keeping the running one: " + e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        scheduler.shutdownNow();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindPolicy(EvictionPolicy policy, Map<String, Object> props) {
        Object ranking = props.get(Constants.SERVICE_RANKING);
        Object name = props.getOrDefault(EvictionPolicy.NAME_PROPERTY, policy.name());
        policies.add(new PolicySelector.Offer(policy, String.valueOf(name),
                ranking instanceof Integer i ? i : 0, (Long) props.get(Constants.SERVICE_ID)));
        LOG.log(Level.INFO, "eviction policy {0} available; active: {1}", name, activeName());
    }

    void unbindPolicy(EvictionPolicy policy) {
        policies.remove(policy);
        LOG.log(Level.INFO, "eviction policy {0} withdrawn; active: {1}", policy.name(), activeName());
    }

    private String activeName() {
        PolicySelector.Offer o = policies.current();
        return o == null ? "none" : o.name();
    }

    // ---- MasterService, delegated ----

    @Override
    public long heartbeat(String clientId) {
        return master.heartbeat(clientId);
    }

    @Override
    public void leave(String clientId) {
        master.leave(clientId);
    }

    @Override
    public void mountSegment(SegmentDescriptor segment) {
        master.mountSegment(segment);
    }

    @Override
    public void updateSegmentEndpoints(SegmentDescriptor segment) {
        master.updateSegmentEndpoints(segment);
    }

    @Override
    public void unmountSegment(String clientId, String segmentName) {
        master.unmountSegment(clientId, segmentName);
    }

    @Override
    public PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config,
            boolean upsert) {
        return master.putStart(clientId, key, sizeBytes, config, upsert);
    }

    @Override
    public void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {
        master.putEnd(clientId, key, putId, checksum, chunks);
    }

    @Override
    public List<ObjectState> lookupBatch(List<ObjectKey> keys) {
        return master.lookupBatch(keys);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        master.putRevoke(clientId, key, putId);
    }

    @Override
    public Optional<TenantStats> tenantStats(String tenant) {
        return master.tenantStats(tenant);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        master.putRevoke(clientId, key, putId, writesInDoubt);
    }

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        return master.getReplicaList(key);
    }

    @Override
    public boolean exists(ObjectKey key) {
        return master.exists(key);
    }

    @Override
    public void remove(ObjectKey key, boolean force) {
        master.remove(key, force);
    }

    @Override
    public int removeByRegex(String tenant, Pattern keyPattern, boolean force) {
        return master.removeByRegex(tenant, keyPattern, force);
    }

    @Override
    public int removeAll(String tenant, boolean force) {
        return master.removeAll(tenant, force);
    }

    @Override
    public Optional<ObjectInfo> queryKey(ObjectKey key) {
        return master.queryKey(key);
    }

    @Override
    public MasterStats stats() {
        return master.stats();
    }

    @Override
    public List<SegmentStats> segments() {
        return master.segments();
    }
}
