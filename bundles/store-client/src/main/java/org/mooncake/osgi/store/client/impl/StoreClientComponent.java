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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.RangeCopy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
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
 * The embedded client as a service: allocates its global segment and local buffer off-heap,
 * mounts the segment, heartbeats the master, and withdraws everything on deactivation.
 *
 * <p>Immediate: its segment holds objects, so it lives as long as its bundle and configuration
 * do, used or not. As a delayed component DS withdrew the segment, and every object in it,
 * whenever its last user let go (a reconfigured admin endpoint did), and in a process where
 * nothing else used the client it contributed no segment at all.
 *
 * <p>It is also the {@code store-client} part of {@code /health}: down, with the reason, while
 * its configured segment is not contributing (not allocated, not held by the master and not
 * mounted again, served by no transport) or the master does not answer its heartbeats.
 */
@Component(service = {StoreClient.class, HealthSource.class}, immediate = true, configurationPid = StoreClientComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = StoreClientComponent.Config.class)
public final class StoreClientComponent implements StoreClient, HealthSource {
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

        @AttributeDefinition(description = "Filter choosing the transport that allocates this client's segment "
                + "(the first bound that matches; every bound transport serves it); read at start")
        String segmentTransport_target() default "(transport.protocol=local)";

        @AttributeDefinition(description = "Objects larger than this get one checksum per chunk of this many bytes, so"
                + " that a ranged read moves and verifies only the chunks it touches; >= 4096. Applies to later puts")
        long checksum_chunk_bytes() default 64 << 10;

        @AttributeDefinition(description = "Bytes of each host buffer through which payloads in device (GPU) memory "
                + "travel; larger objects move through it in pieces of whole checksum chunks. >= 4096; applies to "
                + "later device puts and gets")
        long device_staging_bytes() default 64L << 20;

        @AttributeDefinition(description = "How many device puts and gets may stage at once (one buffer each, "
                + "allocated when first needed); the next waits for a buffer. >= 1")
        int device_staging_buffers() default 4;
    }

    /** A configuration, read and checked: a broken one fails here, before anything changes. */
    record Settings(String clientId, String tenant, long segmentBytes, long bufferBytes, long heartbeatMs,
            String segmentTransport, long checksumChunkBytes, long stagingBytes, int stagingBuffers) {
        /** With the default device staging. */
        Settings(String clientId, String tenant, long segmentBytes, long bufferBytes, long heartbeatMs,
                String segmentTransport, long checksumChunkBytes) {
            this(clientId, tenant, segmentBytes, bufferBytes, heartbeatMs, segmentTransport, checksumChunkBytes,
                    EmbeddedStoreClient.DEFAULT_STAGING_BYTES, EmbeddedStoreClient.DEFAULT_STAGING_BUFFERS);
        }

        Settings {
            if (stagingBytes < ChunkChecksums.MIN_CHUNK_BYTES || stagingBuffers < 1) {
                throw new IllegalArgumentException("device.staging.bytes must be >= " + ChunkChecksums.MIN_CHUNK_BYTES
                        + " and device.staging.buffers >= 1, were " + stagingBytes + " and " + stagingBuffers);
            }
            if (segmentBytes < 0 || bufferBytes < 0 || heartbeatMs <= 0) {
                throw new IllegalArgumentException(
                        "global_segment_size and local_buffer_size must be >= 0 and heartbeat_interval_ms > 0");
            }
            if (checksumChunkBytes < ChunkChecksums.MIN_CHUNK_BYTES) {
                throw new IllegalArgumentException("checksum.chunk.bytes must be >= " + ChunkChecksums.MIN_CHUNK_BYTES
                        + ", was " + checksumChunkBytes);
            }
            try {
                FrameworkUtil.createFilter(segmentTransport);
            } catch (InvalidSyntaxException | NullPointerException e) {
                throw new IllegalArgumentException("segmentTransport.target is not an LDAP filter: " + segmentTransport);
            }
        }

        static Settings of(Config c) {
            return new Settings(c.client_id(), c.tenant(), c.global_segment_size(), c.local_buffer_size(),
                    c.heartbeat_interval_ms(), c.segmentTransport_target(), c.checksum_chunk_bytes(),
                    c.device_staging_bytes(), c.device_staging_buffers());
        }

        /** Whether a transport with these service properties is the one to allocate the segment. */
        boolean allocatesTheSegment(Map<String, ?> transportProperties) {
            try {
                return FrameworkUtil.createFilter(segmentTransport).matches(transportProperties);
            } catch (InvalidSyntaxException e) {
                throw new IllegalStateException(e); // checked when these settings were made
            }
        }

        /** The properties, by name, that only a restart applies and that differ from {@code o}. */
        List<String> restartOnlyChanges(Settings o) {
            List<String> changed = new java.util.ArrayList<>();
            if (!clientId.equals(o.clientId)) {
                changed.add("client.id");
            }
            if (!tenant.equals(o.tenant)) {
                changed.add("tenant");
            }
            if (segmentBytes != o.segmentBytes) {
                changed.add("global.segment.size");
            }
            if (bufferBytes != o.bufferBytes) {
                changed.add("local.buffer.size");
            }
            if (!segmentTransport.equals(o.segmentTransport)) {
                changed.add("segmentTransport.target");
            }
            return changed;
        }
    }

    /** What runs now (tests). */
    Settings settings() {
        return running;
    }

    /** One heartbeat now, beside the scheduled ones (tests). */
    void heartbeatNow() {
        client.heartbeat();
    }

    private final Transports transports = new Transports();
    private final EmbeddedStoreClient client;
    private final Arena arena = Arena.ofShared();
    private final ScheduledExecutorService heartbeats;
    private final MemorySegment localBuffer;
    /** What runs now; changed by {@link #modified} only (DS calls it one change at a time). */
    private volatile Settings running;
    private ScheduledFuture<?> beating;

    /** The segment, once a transport that matches {@code segmentTransport.target} has allocated it. */
    private volatile String segment;
    /** Why the matching transport could not allocate the segment; null unless it failed. */
    private volatile String allocationFailure;

    @Activate
    public StoreClientComponent(Config config, @Reference MasterService master) {
        running = Settings.of(config);
        String id = running.clientId().isBlank() ? "embedded-" + UUID.randomUUID().toString().substring(0, 8)
                : running.clientId();
        client = new EmbeddedStoreClient(master, transports, id, running.tenant(), null, InstantSource.system());
        client.checksumChunkBytes(running.checksumChunkBytes());
        client.deviceStaging(running.stagingBytes(), running.stagingBuffers());
        localBuffer = running.bufferBytes() > 0 ? arena.allocate(running.bufferBytes(), 64) : null;
        if (localBuffer != null) {
            client.registerBuffer(localBuffer);
        }
        heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mooncake-client-heartbeat-" + id);
            t.setDaemon(true);
            return t;
        });
        beating = heartbeats.scheduleAtFixedRate(client::heartbeat, running.heartbeatMs(), running.heartbeatMs(),
                TimeUnit.MILLISECONDS);
        if (running.segmentBytes() == 0) {
            client.heartbeat(); // registered now; one with a segment registers when it mounts it
            LOG.log(Level.INFO, "client {0} of tenant {1} up, contributing no segment", id, running.tenant());
        } else {
            // DS binds the transports there are right after this constructor: by then one should have matched
            heartbeats.schedule(() -> {
                String waiting = segmentWaiting();
                if (waiting != null) {
                    LOG.log(Level.WARNING, waiting);
                }
            }, running.heartbeatMs(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Why the segment is not there yet, or null when it is (or none is wanted): a
     * {@code segmentTransport.target} that no bound transport matches (a misspelt
     * {@code --set transport=...}) would otherwise leave a storage node contributing nothing, silently.
     */
    String segmentWaiting() {
        Settings now = running;
        if (segment != null || now.segmentBytes() == 0) {
            return null;
        }
        String failed = allocationFailure;
        if (failed != null) {
            return "client " + client.clientId() + " contributes no segment: " + failed;
        }
        List<String> bound = transports.all().stream().map(Transport::protocol).toList();
        return "client " + client.clientId() + " contributes no segment yet: no transport matching "
                + now.segmentTransport() + " is bound (bound: " + (bound.isEmpty() ? "none" : String.join(", ", bound))
                + "); its " + now.segmentBytes() + "-byte segment is allocated when one starts";
    }

    /**
     * A changed configuration. Without this DS would restart the client for any change, which
     * withdraws its segment and every object in it, and for a broken file leave no client at all.
     * So a broken one is refused; the heartbeat interval changes in place; what shapes the segment
     * or the client's identity applies when the client restarts (the log says so), because only a
     * restart can apply it and a restart empties the segment, {@code segmentTransport.target}
     * included (it chooses who allocates the segment, which exists already).
     */
    @Modified
    void modified(Config config) {
        Settings next;
        try {
            next = Settings.of(config);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected client configuration, client {0} keeps running as it was: {1}",
                    client.clientId(), e.getMessage());
            return;
        }
        if (next.heartbeatMs() != running.heartbeatMs()) {
            beating.cancel(false);
            beating = heartbeats.scheduleAtFixedRate(client::heartbeat, next.heartbeatMs(), next.heartbeatMs(),
                    TimeUnit.MILLISECONDS);
            running = new Settings(running.clientId(), running.tenant(), running.segmentBytes(), running.bufferBytes(),
                    next.heartbeatMs(), running.segmentTransport(), running.checksumChunkBytes(), running.stagingBytes(),
                    running.stagingBuffers());
        }
        if (next.checksumChunkBytes() != running.checksumChunkBytes()) {
            client.checksumChunkBytes(next.checksumChunkBytes()); // later puts only: each object keeps its own
            running = new Settings(running.clientId(), running.tenant(), running.segmentBytes(), running.bufferBytes(),
                    running.heartbeatMs(), running.segmentTransport(), next.checksumChunkBytes(), running.stagingBytes(),
                    running.stagingBuffers());
        }
        if (next.stagingBytes() != running.stagingBytes() || next.stagingBuffers() != running.stagingBuffers()) {
            client.deviceStaging(next.stagingBytes(), next.stagingBuffers()); // device puts and gets under way finish on the old
            running = new Settings(running.clientId(), running.tenant(), running.segmentBytes(), running.bufferBytes(),
                    running.heartbeatMs(), running.segmentTransport(), running.checksumChunkBytes(), next.stagingBytes(),
                    next.stagingBuffers());
        }
        List<String> later = next.restartOnlyChanges(running);
        if (!later.isEmpty()) {
            LOG.log(Level.WARNING, "client {0}: {1} changed and applies when the client restarts (restart bundle "
                    + "org.mooncake.osgi.store.client); the restart withdraws its segment and the objects in it",
                    client.clientId(), String.join(", ", later));
        }
    }

    /**
     * Every transport, bound and unbound while the client runs (a transport's bundle updated or
     * stopped). The first that matches {@code segmentTransport.target} allocates the segment and
     * mounts it; every one serves the segment where it can, and the master hears each change.
     * The segment's memory belongs to this client, not to a transport, so it and its objects
     * outlive the transport that allocated it (shm's file stays mapped here; a restarted shm
     * transport cannot serve memory it did not allocate, so the others serve it until the client
     * restarts).
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTransport(Transport t, Map<String, Object> properties) {
        transports.add(t);
        client.registerBuffersWith(t); // the local buffer was registered before any transport was bound
        synchronized (this) {
            if (segment == null && running.segmentBytes() > 0 && running.allocatesTheSegment(properties)) {
                // a storage node may start before its master: the heartbeats mount the segment then
                try {
                    segment = client.mountNewSegmentOnceReachable(t, running.segmentBytes(), arena);
                } catch (RuntimeException e) {
                    allocationFailure = "the " + t.protocol() + " transport could not allocate or mount its "
                            + running.segmentBytes() + "-byte segment (" + e.getMessage() + "); tried again when a "
                            + "matching transport is bound";
                    throw e;
                }
                allocationFailure = null;
                LOG.log(Level.INFO, "client {0} of tenant {1} up with segment {2} ({3} bytes) allocated by the {4} transport",
                        client.clientId(), running.tenant(), segment, running.segmentBytes(), t.protocol());
                return;
            }
        }
        client.transportBound(t);
    }

    /**
     * Device memory services (bundle org.mooncake.osgi.device.cuda registers one where the NVIDIA
     * driver works), bound and unbound while the client runs: without one of a buffer's kind,
     * device puts and gets fail with INVALID_PARAMS saying so.
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDeviceMemory(DeviceMemory memory) {
        client.bindDeviceMemory(memory);
    }

    void unbindDeviceMemory(DeviceMemory memory) {
        client.unbindDeviceMemory(memory);
    }

    /** Before the transport stops: the master stops naming it first, then the table forgets it. */
    void unbindTransport(Transport t) {
        client.transportUnbound(t);
        transports.remove(t);
    }

    @Deactivate
    void deactivate() {
        heartbeats.shutdownNow();
        try {
            heartbeats.awaitTermination(1, TimeUnit.SECONDS); // a heartbeat after leaving would register it again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.leave();
        client.closeDeviceStaging();
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

    /** See {@link #unhealthyReason}. */
    @Override
    public boolean isHealthy() {
        return unhealthyReason() == null;
    }

    /**
     * Why this client is unhealthy, or null: its configured segment is not there (no matching
     * transport, or allocating it failed), or the client is unhealthy ({@link
     * EmbeddedStoreClient#unhealthyReason}).
     */
    String unhealthyReason() {
        String waiting = segmentWaiting();
        return waiting != null ? waiting : client.unhealthyReason();
    }

    /** Its role in {@code /health}. */
    static final String HEALTH_NAME = "store-client";

    @Override
    public String name() {
        return HEALTH_NAME;
    }

    /** Up when {@link #isHealthy}; the details name the client, its segments, and the reason when down. */
    @Override
    public Health health() {
        String why = unhealthyReason();
        Map<String, Object> details = new java.util.LinkedHashMap<>();
        details.put("client_id", client.clientId());
        details.put("segments", new java.util.TreeSet<>(client.ownSegments()).stream().toList());
        if (why != null) {
            details.put("reason", why);
        }
        return new Health(why == null, details);
    }

    @Override
    public List<TransferStats> transferStats() {
        return client.transferStats();
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
    public List<OpResult<ObjectState>> lookupBatch(List<String> keys) {
        return client.lookupBatch(keys);
    }

    @Override
    public void registerDeviceBuffer(DeviceBuffer buffer) {
        client.registerDeviceBuffer(buffer);
    }

    @Override
    public void unregisterDeviceBuffer(DeviceBuffer buffer) {
        client.unregisterDeviceBuffer(buffer);
    }

    @Override
    public void putFromDevice(String key, DeviceBuffer source, ReplicateConfig config) {
        client.putFromDevice(key, source, config);
    }

    @Override
    public void upsertFromDevice(String key, DeviceBuffer source, ReplicateConfig config) {
        client.upsertFromDevice(key, source, config);
    }

    @Override
    public long getIntoDevice(String key, DeviceBuffer target) {
        return client.getIntoDevice(key, target);
    }

    @Override
    public String mountDeviceSegment(DeviceBuffer memory) {
        return client.mountDeviceSegment(memory);
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
