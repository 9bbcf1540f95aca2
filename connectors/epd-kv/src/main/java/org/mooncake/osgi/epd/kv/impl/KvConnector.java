package org.mooncake.osgi.epd.kv.impl;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.mooncake.osgi.epd.api.ConnectorRole;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.KvCacheConnector;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorFormatException;
import org.mooncake.osgi.epd.api.support.ScratchBuffers;
import org.mooncake.osgi.epd.api.support.TensorObjects;
import org.mooncake.osgi.epd.api.support.TransferMeter;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The KV connector of a process, over its store client: a prefill saves a prompt's KV blocks in
 * one batch (a look-up first, so blocks another request stored are not written again), a decode
 * loads them in one batch and checks each block's header before a byte of it is used. Stateless
 * between calls; each call runs on its caller's thread.
 */
@Component(service = {KvCacheConnector.class, MetricSource.class}, configurationPid = KvConnector.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = KvConnector.Config.class)
public final class KvConnector implements KvCacheConnector, MetricSource {
    public static final String PID = "org.mooncake.osgi.epd.kv";
    private static final System.Logger LOG = System.getLogger(KvConnector.class.getName());

    @ObjectClassDefinition(name = "Mooncake EPD KV connector", description = "Moves KV blocks Prefill -> Store -> Decode")
    public @interface Config {
        @AttributeDefinition(description = "producer (prefill), consumer (decode) or both")
        String role() default "both";

        @AttributeDefinition(description = "Tokens per KV block")
        int block_tokens() default 64;

        @AttributeDefinition(description = "What a failed load does: recompute (the decode computes the missing part) "
                + "or fail (the request fails)")
        String load_failure() default "recompute";

        @AttributeDefinition(description = "Replicas of each saved block")
        int replicas() default 1;
    }

    /** The configuration, checked. */
    record Settings(ConnectorRole role, int blockTokens, boolean recompute, int replicas) {
        Settings {
            if (blockTokens < 1 || replicas < 1) {
                throw new IllegalArgumentException("block.tokens and replicas must be >= 1");
            }
        }

        static Settings of(Config c) {
            String onFailure = c.load_failure().trim().toLowerCase(java.util.Locale.ROOT);
            if (!onFailure.equals("recompute") && !onFailure.equals("fail")) {
                throw new IllegalArgumentException("load.failure must be recompute or fail, was " + c.load_failure());
            }
            return new Settings(ConnectorRole.parse(c.role()), c.block_tokens(), onFailure.equals("recompute"),
                    c.replicas());
        }
    }

    private final StoreClient client;
    private final Settings settings;
    private final TransferMeter meter = new TransferMeter("mooncake_epd_kv");
    private final ScratchBuffers scratch = new ScratchBuffers();

    @Activate
    public KvConnector(Config config, @Reference StoreClient client) {
        this(Settings.of(config), client);
        LOG.log(Level.INFO, "KV connector up as {0}, {1} tokens a block", settings.role(), settings.blockTokens());
    }

    KvConnector(Settings settings, StoreClient client) {
        TensorObjects.requireLittleEndian();
        this.settings = settings;
        this.client = client;
    }

    @Override
    public ConnectorRole role() {
        return settings.role();
    }

    @Override
    public int blockTokens() {
        return settings.blockTokens();
    }

    @Override
    public boolean recomputesOnFailure() {
        return settings.recompute();
    }

    public TransferMeter meter() {
        return meter;
    }

    @Override
    public List<Metric> metrics() {
        return meter.metrics();
    }

    @Override
    public SaveResult save(KeyNamespace ns, String requestId, List<byte[]> hashes, IntFunction<Tensor> block,
            String groupId) {
        if (!settings.role().saves()) {
            throw new IllegalStateException("this process's KV connector is a consumer: it saves nothing");
        }
        List<String> keys = hashes.stream().map(h -> ns.kvBlock(0, h)).toList();
        List<OpResult<ObjectState>> states;
        try {
            states = client.lookupBatch(keys);
        } catch (StoreException e) {
            return failedSave(keys.size(), e.getMessage());
        }
        int already = 0;
        List<Integer> write = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            OpResult<ObjectState> s = states.get(i);
            if (s.isOk() && s.value() != ObjectState.ABSENT) {
                already++; // stored, or being stored by another prefill of the same prefix
            } else {
                write.add(i);
            }
        }
        ReplicateConfig.Builder config = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE)
                .replicaCount(settings.replicas());
        if (groupId != null) {
            config.groupId(groupId);
        }
        int saved = 0;
        int failed = 0;
        long bytes = 0;
        String error = null;
        List<ScratchBuffers.Lease> leases = new ArrayList<>();
        try {
            long start = System.nanoTime(); // the connector's own work (headers, copies) counts too
            Map<String, MemorySegment> objects = new LinkedHashMap<>();
            for (int i : write) {
                Tensor t = block.apply(i);
                ScratchBuffers.Lease lease = scratch.take(t.header().objectBytes());
                leases.add(lease);
                TensorObjects.encodeInto(t, lease.segment());
                objects.put(keys.get(i), lease.segment());
            }
            List<OpResult<Void>> results = objects.isEmpty() ? List.of() : client.putFromBatch(objects, config.build());
            long took = System.nanoTime() - start;
            long total = objects.values().stream().mapToLong(MemorySegment::byteSize).sum();
            for (OpResult<Void> r : results) {
                long size = objects.get(r.key()).byteSize();
                if (r.isOk()) {
                    saved++;
                    bytes += size;
                    meter.transfer("put", "ok", size, took * size / Math.max(1, total));
                } else if (r.error() == ErrorCode.OBJECT_ALREADY_EXISTS || r.error() == ErrorCode.OBJECT_BEING_WRITTEN) {
                    already++;
                    meter.transfer("put", "exists", 0, 0);
                } else {
                    failed++;
                    error = error != null ? error : r.error() + ": " + r.message();
                    meter.transfer("put", "failed", 0, 0);
                    meter.event("failed_keys", "Keys whose transfer failed, by operation", "op", "put");
                }
            }
        } catch (StoreException e) {
            return failedSave(keys.size(), e.getMessage());
        } finally {
            leases.forEach(ScratchBuffers.Lease::close);
        }
        if (failed > 0) {
            LOG.log(Level.WARNING, "request {0}: {1} of {2} KV blocks not saved (a decode recomputes from the first "
                    + "missing one): {3}", requestId, failed, keys.size(), error);
        }
        return new SaveResult(saved, already, failed, bytes, error, handedOn(keys.size(), failed == 0));
    }

    private SaveResult failedSave(int blocks, String why) {
        meter.transfer("put", "failed", 0, 0);
        LOG.log(Level.WARNING, "KV blocks not saved: {0}", why);
        return new SaveResult(0, 0, blocks, 0, why, handedOn(blocks, false));
    }

    /** What a save hands the decode in {@code kv_transfer_params}. */
    private Map<String, Object> handedOn(int blocks, boolean complete) {
        return Map.of("kv_block_tokens", settings.blockTokens(), "kv_blocks", blocks, "kv_blocks_complete", complete,
                "kv_connector", "mooncake-store");
    }

    /** Counts the first {@code n} blocks as loaded, sharing the load's time by bytes (header checks and copies included). */
    private void record(List<OpResult<Long>> results, int n, long took, long total) {
        for (int i = 0; i < n; i++) {
            long size = results.get(i).value();
            meter.transfer("get", "ok", size, took * size / Math.max(1, total));
        }
    }

    @Override
    public LoadResult load(KeyNamespace ns, String requestId, List<byte[]> hashes, IntFunction<Tensor> targets) {
        if (!settings.role().loads()) {
            throw new IllegalStateException("this process's KV connector is a producer: it loads nothing");
        }
        List<String> keys = hashes.stream().map(h -> ns.kvBlock(0, h)).toList();
        List<ScratchBuffers.Lease> leases = new ArrayList<>();
        try {
            Map<String, MemorySegment> into = new LinkedHashMap<>();
            List<Tensor> blocks = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                Tensor t = targets.apply(i);
                blocks.add(t);
                ScratchBuffers.Lease lease = scratch.take(t.header().objectBytes());
                leases.add(lease);
                into.put(keys.get(i), lease.segment());
            }
            long start = System.nanoTime();
            List<OpResult<Long>> results;
            try {
                results = keys.isEmpty() ? List.of() : client.getIntoBatch(into);
            } catch (StoreException e) {
                meter.transfer("get", "failed", 0, 0);
                return new LoadResult(0, keys.size(), 0, e.getMessage());
            }
            long total = results.stream().filter(OpResult::isOk).mapToLong(OpResult::value).sum();
            long bytes = 0;
            for (int i = 0; i < results.size(); i++) {
                OpResult<Long> r = results.get(i);
                String why = r.isOk() ? null : r.error() + ": " + r.message();
                if (r.isOk()) {
                    try {
                        TensorObjects.decodeInto(into.get(keys.get(i)), r.value(), blocks.get(i));
                    } catch (TensorFormatException e) {
                        why = "wrong tensor object: " + e.getMessage();
                    }
                }
                if (why != null) {
                    meter.transfer("get", "failed", 0, 0);
                    meter.event("failed_keys", "Keys whose transfer failed, by operation", "op", "get");
                    LOG.log(Level.WARNING, "request {0}: KV block {1} of {2} could not be loaded: {3}", requestId, i,
                            keys.size(), why);
                    record(results, i, System.nanoTime() - start, total);
                    return new LoadResult(i, keys.size(), bytes, "block " + i + ": " + why);
                }
                bytes += r.value();
            }
            record(results, results.size(), System.nanoTime() - start, total);
            return new LoadResult(keys.size(), keys.size(), bytes, null);
        } finally {
            leases.forEach(ScratchBuffers.Lease::close);
        }
    }
}
