package org.mooncake.osgi.epd.hidden.impl;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;

import org.mooncake.osgi.epd.api.EcLoadException;
import org.mooncake.osgi.epd.api.EcStepMetadata;
import org.mooncake.osgi.epd.api.EcWorkerOutput;
import org.mooncake.osgi.epd.api.EncoderCacheWorker;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorFormatException;
import org.mooncake.osgi.epd.api.support.ScratchBuffers;
import org.mooncake.osgi.epd.api.support.TensorObjects;
import org.mooncake.osgi.epd.api.support.TransferMeter;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;

/**
 * The worker role of one namespace. Loads run on the engine's thread (a load is a pre-execution
 * dependency): every item of the step in one {@code getIntoBatch}, each checked against what
 * the engine expects before a byte reaches the encoder cache. Saves run on the connector's
 * executor, one virtual thread each; what they finished is collected in concurrent sets that
 * {@link #getFinished} drains.
 */
final class EcWorker implements EncoderCacheWorker {
    private static final System.Logger LOG = System.getLogger(EcWorker.class.getName());
    private final StoreClient client;
    private final KeyNamespace namespace;
    private final ItemStates states;
    private final ExecutorService executor;
    private final TransferMeter meter;
    private final Settings settings;
    private final EcScheduler scheduler;
    private final ScratchBuffers scratch;
    private volatile EcStepMetadata bound;
    private final Set<String> sent = ConcurrentHashMap.newKeySet();
    private final Set<String> received = ConcurrentHashMap.newKeySet();
    private final Map<String, String> failedLoads = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> saving = new ConcurrentHashMap<>();

    EcWorker(StoreClient client, KeyNamespace namespace, ItemStates states, ExecutorService executor, TransferMeter meter,
            Settings settings, EcScheduler scheduler, ScratchBuffers scratch) {
        this.scratch = scratch;
        this.client = client;
        this.namespace = namespace;
        this.states = states;
        this.executor = executor;
        this.meter = meter;
        this.settings = settings;
        this.scheduler = scheduler;
    }

    @Override
    public void bindConnectorMetadata(EcStepMetadata metadata) {
        bound = metadata;
    }

    @Override
    public void clearConnectorMetadata() {
        bound = null;
    }

    @Override
    public void startLoadCaches(Map<String, Tensor> encoderCache) {
        EcStepMetadata meta = bound;
        if (meta == null || meta.loads().isEmpty()) {
            return;
        }
        if (!settings.role().loads()) {
            throw new IllegalStateException("this process's hidden-state connector is a producer: it loads nothing");
        }
        Map<String, EcStepMetadata.Load> byItem = new LinkedHashMap<>();
        meta.loads().forEach(l -> byItem.putIfAbsent(l.itemId(), l)); // two requests of a step may share an item
        Map<String, String> failed = new LinkedHashMap<>();
        List<ScratchBuffers.Lease> leases = new ArrayList<>();
        try {
            Map<String, MemorySegment> targets = new LinkedHashMap<>();
            Map<String, String> itemOfKey = new LinkedHashMap<>();
            for (EcStepMetadata.Load l : byItem.values()) {
                String key = namespace.hiddenState(l.itemId());
                ScratchBuffers.Lease lease = scratch.take(l.expected().objectBytes());
                leases.add(lease);
                targets.put(key, lease.segment());
                itemOfKey.put(key, l.itemId());
            }
            long start = System.nanoTime();
            List<OpResult<Long>> results;
            try {
                results = client.getIntoBatch(targets);
            } catch (StoreException e) { // the whole batch: every item fails alike
                results = targets.keySet().stream().map(k -> OpResult.<Long>failed(k, e)).toList();
            }
            long total = results.stream().filter(OpResult::isOk).mapToLong(OpResult::value).sum();
            List<String> loaded = new ArrayList<>();
            for (OpResult<Long> r : results) {
                String item = itemOfKey.get(r.key());
                EcStepMetadata.Load load = byItem.get(item);
                String why = null;
                if (!r.isOk()) {
                    why = r.error() == ErrorCode.BUFFER_TOO_SMALL ? "stored object is larger than expected: " + r.message()
                            : r.error() + ": " + r.message();
                } else {
                    try {
                        Tensor t = TensorObjects.allocate(load.expected());
                        TensorObjects.decodeInto(targets.get(r.key()), r.value(), t);
                        encoderCache.put(item, t);
                        received.add(item);
                        loaded.add(r.key());
                    } catch (TensorFormatException e) {
                        why = "wrong tensor object: " + e.getMessage();
                    }
                }
                if (why != null) {
                    failed.put(item, why);
                    meter.transfer("get", "failed", 0, 0);
                    meter.event("failed_keys", "Keys whose transfer failed, by operation", "op", "get");
                    if (settings.recomputeOnLoadFailure()) {
                        meter.event("recomputes_after_hit", "Items found in the store but computed here because their "
                                + "load failed", "kind", "hidden_state");
                    }
                    LOG.log(System.Logger.Level.WARNING, "hidden state {0} could not be loaded ({1}): {2}", item,
                            settings.recomputeOnLoadFailure() ? "computing it here" : "failing its request", why);
                }
            }
            // the batch's time, header checks and copies into the cache included, shared by bytes
            long took = System.nanoTime() - start;
            for (OpResult<Long> r : results) {
                if (loaded.contains(r.key())) {
                    meter.transfer("get", "ok", r.value(), total == 0 ? took : took * r.value() / total);
                }
            }
        } finally {
            leases.forEach(ScratchBuffers.Lease::close);
        }
        failedLoads.putAll(failed);
        if (!failed.isEmpty() && !settings.recomputeOnLoadFailure()) {
            throw new EcLoadException(failed);
        }
    }

    @Override
    public void saveCaches(Map<String, Tensor> encoderCache, String itemId, SaveHints hints) {
        if (!settings.role().saves()) {
            throw new IllegalStateException("this process's hidden-state connector is a consumer: it saves nothing");
        }
        Tensor t = encoderCache.get(itemId);
        if (t == null) {
            throw new IllegalArgumentException("item " + itemId + " is not in the encoder cache");
        }
        ItemStates.Entry known = states.get(itemId);
        if (known != null && known.state() == ItemStates.Known.READABLE) {
            return; // stored already: idempotent
        }
        SaveHints h = hints == null ? SaveHints.NONE : hints;
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (saving.putIfAbsent(itemId, done) != null) {
            return; // this process is saving it already
        }
        executor.execute(() -> {
            try {
                save(itemId, t, h);
            } finally {
                saving.remove(itemId, done);
                done.complete(null);
            }
        });
    }

    private void save(String itemId, Tensor t, SaveHints hints) {
        String key = namespace.hiddenState(itemId);
        ReplicateConfig.Builder config = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE)
                .replicaCount(settings.replicas());
        if (!Double.isNaN(hints.recomputeCostMs())) {
            config.recomputeCostMs(hints.recomputeCostMs());
        }
        if (hints.groupId() != null) {
            config.groupId(hints.groupId());
        }
        long start = System.nanoTime();
        try (ScratchBuffers.Lease buffer = scratch.take(t.header().objectBytes())) {
            TensorObjects.encodeInto(t, buffer.segment());
            client.putFrom(key, buffer.segment(), config.build());
            meter.transfer("put", "ok", buffer.segment().byteSize(), System.nanoTime() - start);
            finished(itemId, hints);
        } catch (StoreException e) {
            if (e.errorCode() == ErrorCode.OBJECT_ALREADY_EXISTS) {
                meter.transfer("put", "exists", 0, 0);
                finished(itemId, hints);
            } else if (e.errorCode() == ErrorCode.OBJECT_BEING_WRITTEN) {
                meter.transfer("put", "being_written", 0, 0); // another process's save: it reports its own
            } else {
                meter.transfer("put", "failed", 0, 0);
                meter.event("failed_keys", "Keys whose transfer failed, by operation", "op", "put");
                states.set(itemId, ItemStates.Known.ABSENT);
                LOG.log(System.Logger.Level.WARNING, "hidden state {0} was not saved (later requests compute it): {1}",
                        itemId, e.getMessage());
            }
        } catch (RuntimeException e) {
            meter.transfer("put", "failed", 0, 0);
            states.set(itemId, ItemStates.Known.ABSENT);
            LOG.log(System.Logger.Level.ERROR, "saving hidden state " + itemId + " failed", e);
        }
    }

    private void finished(String itemId, SaveHints hints) {
        states.set(itemId, ItemStates.Known.READABLE);
        sent.add(itemId);
        scheduler.saved(hints.requestId(), itemId);
    }

    @Override
    public void awaitSaves() throws InterruptedException {
        for (CompletableFuture<Void> f : new ArrayList<>(saving.values())) {
            try {
                f.get();
            } catch (ExecutionException e) {
                // counted and logged by the save itself
            }
        }
    }

    @Override
    public EcWorkerOutput getFinished(Set<String> finishedRequests) {
        Set<String> s = drain(sent);
        Set<String> r = drain(received);
        Map<String, String> f = new LinkedHashMap<>();
        for (String item : new ArrayList<>(failedLoads.keySet())) {
            String why = failedLoads.remove(item);
            if (why != null) {
                f.put(item, why);
            }
        }
        return new EcWorkerOutput(s, r, f);
    }

    private static Set<String> drain(Set<String> from) {
        Set<String> out = new HashSet<>();
        for (String x : new ArrayList<>(from)) {
            if (from.remove(x)) {
                out.add(x);
            }
        }
        return out;
    }

    @Override
    public void shutdown() {
        bound = null;
    }
}
