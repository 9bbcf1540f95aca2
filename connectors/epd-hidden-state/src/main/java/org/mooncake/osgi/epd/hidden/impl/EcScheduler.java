package org.mooncake.osgi.epd.hidden.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.mooncake.osgi.epd.api.EcStepMetadata;
import org.mooncake.osgi.epd.api.EcWorkerOutput;
import org.mooncake.osgi.epd.api.EncoderCacheScheduler;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.epd.api.TensorSpec;
import org.mooncake.osgi.epd.api.support.TransferMeter;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.StoreClient;

/**
 * The scheduler role of one namespace. Its answers come from {@link ItemStates}; the items it
 * has no fresh answer for are asked about in one {@code lookupBatch} on the connector's
 * executor, never on the caller's thread. The step's allocations are the engine thread's alone
 * (the engine builds a step at a time); look-up answers arrive on executor threads.
 */
final class EcScheduler implements EncoderCacheScheduler {
    private static final System.Logger LOG = System.getLogger(EcScheduler.class.getName());
    private final StoreClient client;
    private final KeyNamespace namespace;
    private final ItemStates states;
    private final Executor executor;
    private final TransferMeter meter;
    private final List<EcStepMetadata.Load> step = new ArrayList<>();
    private long steps;
    /** Items each live request saved, for {@link #requestFinished}; filled from the worker's reports. */
    private final Map<String, Set<String>> savedBy = new ConcurrentHashMap<>();

    private final Settings settings;

    EcScheduler(StoreClient client, KeyNamespace namespace, ItemStates states, Executor executor, TransferMeter meter,
            Settings settings) {
        this.settings = settings;
        this.client = client;
        this.namespace = namespace;
        this.states = states;
        this.executor = executor;
        this.meter = meter;
    }

    @Override
    public LookupOutcome lookup(String itemId) {
        List<String> ask = new ArrayList<>(1);
        LookupOutcome o = states.outcome(itemId, ask);
        if (!ask.isEmpty()) {
            executor.execute(() -> ask(ask));
        }
        return counted(o);
    }

    private LookupOutcome counted(LookupOutcome o) {
        meter.event("lookups", "Scheduler look-ups by outcome (pending: asked again later)", "outcome",
                o.name().toLowerCase(java.util.Locale.ROOT));
        return o;
    }

    /** One store round trip for the items; an unreachable store makes them misses (they are computed here). */
    private void ask(List<String> items) {
        List<String> keys = items.stream().map(namespace::hiddenState).toList();
        try {
            List<OpResult<ObjectState>> found = client.lookupBatch(keys);
            states.answered(items, found.stream().map(r -> r.isOk() ? r.value() : ObjectState.ABSENT).toList());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "hidden-state look-up of {0} item(s) failed, computing them here: {1}",
                    items.size(), e.getMessage());
            states.answered(items, items.stream().map(i -> ObjectState.ABSENT).toList());
        }
    }

    /**
     * Asks (again, if the answer is stale); while that is pending, waits for the answer, or for
     * a load here to end, or for the next recheck of an item another process is writing.
     */
    @Override
    public LookupOutcome awaitLookup(String itemId, long timeoutMs) throws InterruptedException {
        LookupOutcome o = lookup(itemId);
        ItemStates.Entry seen = states.get(itemId);
        if (o != LookupOutcome.PENDING || seen == null) {
            return o;
        }
        if (seen.state() == ItemStates.Known.WRITING) {
            states.awaitChange(itemId, seen, Math.min(timeoutMs, settings.writingRecheckMs()));
            return lookup(itemId);
        }
        states.awaitChange(itemId, seen, timeoutMs);
        return lookup(itemId); // the answer, if it came (given, and counted, once), else pending still
    }

    @Override
    public void updateStateAfterAlloc(String requestId, String itemId, TensorSpec expected) {
        step.add(new EcStepMetadata.Load(requestId, itemId, expected));
        states.set(itemId, ItemStates.Known.LOADING);
    }

    @Override
    public EcStepMetadata buildConnectorMeta() {
        EcStepMetadata meta = new EcStepMetadata(steps++, step);
        step.clear();
        return meta;
    }

    @Override
    public void updateConnectorOutput(EcWorkerOutput output) {
        output.received().forEach(i -> states.set(i, ItemStates.Known.READABLE));
        output.sent().forEach(i -> states.set(i, ItemStates.Known.READABLE));
        output.failedLoads().keySet().forEach(i -> states.set(i, ItemStates.Known.ABSENT));
    }

    /** The worker saved {@code itemId} for {@code requestId}. */
    void saved(String requestId, String itemId) {
        if (requestId != null) {
            savedBy.computeIfAbsent(requestId, r -> ConcurrentHashMap.newKeySet()).add(itemId);
        }
    }

    /**
     * No memory needs to outlive the request here: a save in flight holds its own reference to
     * the tensor. Hands on the items the request saved.
     */
    @Override
    public RequestFinished requestFinished(String requestId) {
        Set<String> saved = savedBy.remove(requestId);
        return new RequestFinished(false, saved == null ? Map.of() : Map.of("ec_saved_items", List.copyOf(saved)));
    }
}
