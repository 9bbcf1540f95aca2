package org.mooncake.osgi.store.client.impl;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.RangeCopy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The embedded client as a service: allocates its global segment and local buffer off-heap,
 * mounts the segment, heartbeats the master, and withdraws everything on deactivation.
 *
 * <p>Immediate: its segment holds objects, so it lives as long as its bundle and configuration
 * do, used or not. As a delayed component DS withdrew the segment, and every object in it,
 * whenever its last user let go (a reconfigured admin endpoint did), and in a process where
 * nothing else used the client it contributed no segment at all.
 */
@Component(service = StoreClient.class, immediate = true, configurationPid = StoreClientComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = StoreClientComponent.Config.class)
public final class StoreClientComponent implements StoreClient {
    public static final String PID = "org.mooncake.osgi.store.client";
    private static final System.Logger LOG = System.getLogger(StoreClientComponent.class.getName());

    @ObjectClassDefinition(name = "Mooncake embedded client",
            description = "A client that stores (contributes a segment) and requests")
    public @interface Config {
        @AttributeDefinition(description = "Unique client id; empty: generated")
        String client_id() default "";

        @AttributeDefinition(description = "Tenant every key of this client belongs to")
        String tenant() default "default";

        @AttributeDefinition(description = "Bytes of off-heap memory contributed to the store; 0: a pure client")
        long global_segment_size() default 256L << 20;

        @AttributeDefinition(description = "Bytes of registered off-heap memory for transfers; 0: none")
        long local_buffer_size() default 16L << 20;

        @AttributeDefinition(description = "How often to report liveness to the master, ms")
        long heartbeat_interval_ms() default 1000;

        @AttributeDefinition(description = "Filter choosing the transport that serves this client's segment")
        String segmentTransport_target() default "(transport.protocol=local)";
    }

    private final Transports transports = new Transports();
    private final EmbeddedStoreClient client;
    private final Arena arena = Arena.ofShared();
    private final ScheduledExecutorService heartbeats;
    private final MemorySegment localBuffer;

    @Activate
    public StoreClientComponent(Config config, @Reference MasterService master,
            @Reference(name = "segmentTransport") Transport segmentTransport) {
        if (config.global_segment_size() < 0 || config.local_buffer_size() < 0 || config.heartbeat_interval_ms() <= 0) {
            throw new IllegalArgumentException(
                    "global_segment_size and local_buffer_size must be >= 0 and heartbeat_interval_ms > 0");
        }
        transports.add(segmentTransport);
        String id = config.client_id().isBlank() ? "embedded-" + UUID.randomUUID().toString().substring(0, 8)
                : config.client_id();
        client = new EmbeddedStoreClient(master, transports, id, config.tenant(), segmentTransport.protocol(),
                InstantSource.system());
        master.heartbeat(id);
        if (config.global_segment_size() > 0) {
            client.mountNewSegment(config.global_segment_size(), arena);
        }
        localBuffer = config.local_buffer_size() > 0 ? arena.allocate(config.local_buffer_size(), 64) : null;
        if (localBuffer != null) {
            client.registerBuffer(localBuffer);
        }
        heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mooncake-client-heartbeat-" + id);
            t.setDaemon(true);
            return t;
        });
        heartbeats.scheduleAtFixedRate(client::heartbeat, config.heartbeat_interval_ms(),
                config.heartbeat_interval_ms(), TimeUnit.MILLISECONDS);
        LOG.log(Level.INFO, "client {0} of tenant {1} up with a {2}-byte segment over {3}", id, config.tenant(),
                config.global_segment_size(), segmentTransport.protocol());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTransport(Transport t) {
        transports.add(t);
    }

    void unbindTransport(Transport t) {
        transports.remove(t);
    }

    @Deactivate
    void deactivate() {
        heartbeats.shutdownNow();
        client.unmountAll();
        if (localBuffer != null) {
            client.unregisterBuffer(localBuffer);
        }
        // In-flight transfers against the segment fail cleanly once the arena is closed.
        arena.close();
    }

    // ---- StoreClient, delegated ----

    @Override
    public String tenant() {
        return client.tenant();
    }

    @Override
    public boolean isHealthy() {
        return client.isHealthy();
    }

    @Override
    public void put(String key, byte[] value, ReplicateConfig config) {
        client.put(key, value, config);
    }

    @Override
    public void upsert(String key, byte[] value, ReplicateConfig config) {
        client.upsert(key, value, config);
    }

    @Override
    public byte[] get(String key) {
        return client.get(key);
    }

    @Override
    public long getSize(String key) {
        return client.getSize(key);
    }

    @Override
    public boolean exists(String key) {
        return client.exists(key);
    }

    @Override
    public void remove(String key, boolean force) {
        client.remove(key, force);
    }

    @Override
    public int removeByRegex(String regex, boolean force) {
        return client.removeByRegex(regex, force);
    }

    @Override
    public int removeAll(boolean force) {
        return client.removeAll(force);
    }

    @Override
    public List<OpResult<Void>> putBatch(Map<String, byte[]> values, ReplicateConfig config) {
        return client.putBatch(values, config);
    }

    @Override
    public List<OpResult<Void>> upsertBatch(Map<String, byte[]> values, ReplicateConfig config) {
        return client.upsertBatch(values, config);
    }

    @Override
    public List<OpResult<byte[]>> getBatch(List<String> keys) {
        return client.getBatch(keys);
    }

    @Override
    public List<OpResult<Boolean>> existsBatch(List<String> keys) {
        return client.existsBatch(keys);
    }

    @Override
    public List<OpResult<Void>> removeBatch(List<String> keys, boolean force) {
        return client.removeBatch(keys, force);
    }

    @Override
    public void registerBuffer(MemorySegment buffer) {
        client.registerBuffer(buffer);
    }

    @Override
    public void unregisterBuffer(MemorySegment buffer) {
        client.unregisterBuffer(buffer);
    }

    @Override
    public void putFrom(String key, MemorySegment source, ReplicateConfig config) {
        client.putFrom(key, source, config);
    }

    @Override
    public void upsertFrom(String key, MemorySegment source, ReplicateConfig config) {
        client.upsertFrom(key, source, config);
    }

    @Override
    public long getInto(String key, MemorySegment target) {
        return client.getInto(key, target);
    }

    @Override
    public long getIntoRanges(String key, List<RangeCopy> ranges, MemorySegment target) {
        return client.getIntoRanges(key, ranges, target);
    }

    @Override
    public List<OpResult<Void>> putFromBatch(Map<String, MemorySegment> sources, ReplicateConfig config) {
        return client.putFromBatch(sources, config);
    }

    @Override
    public List<OpResult<Long>> getIntoBatch(Map<String, MemorySegment> targets) {
        return client.getIntoBatch(targets);
    }

    @Override
    public String mountSegment(MemorySegment memory) {
        return client.mountSegment(memory);
    }

    @Override
    public void unmountSegment(String segmentName) {
        client.unmountSegment(segmentName);
    }
}
