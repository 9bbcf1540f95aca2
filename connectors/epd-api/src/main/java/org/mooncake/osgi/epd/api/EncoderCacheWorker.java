package org.mooncake.osgi.epd.api;

import java.util.Map;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The worker role: moves hidden states between the store and the engine's encoder cache (item
 * id -> tensor). Called on the engine's worker thread, one step at a time: bind the step's
 * metadata, load, run the model, save new items, clear.
 */
@ProviderType
public interface EncoderCacheWorker {

    void bindConnectorMetadata(EcStepMetadata metadata);

    void clearConnectorMetadata();

    /**
     * Loads every item of the bound metadata into {@code encoderCache} before the model gathers
     * embeddings, synchronously: a load is a pre-execution dependency. An item whose load fails
     * (gone since the look-up, wrong header, transfer error) is not put in the cache at all; it
     * is reported by {@link #getFinished} and, unless the connector is configured to degrade to a
     * local recompute, also thrown here as {@link EcLoadException} after the other loads.
     */
    void startLoadCaches(Map<String, Tensor> encoderCache);

    /**
     * Saves a newly encoded item, asynchronously and idempotently (an item already stored, or
     * being stored by another process, is not written again). A save that fails is never
     * reported finished, so later requests miss and recompute.
     */
    void saveCaches(Map<String, Tensor> encoderCache, String itemId, SaveHints hints);

    /** Blocks until every save this worker started has ended (tests, shutdown). */
    void awaitSaves() throws InterruptedException;

    /**
     * Saves and loads finished since the last call (the "sent" and "received" of vLLM's
     * {@code get_finished}), and loads that failed; {@code finishedRequests} lets the connector
     * drop state of requests that are done.
     */
    EcWorkerOutput getFinished(Set<String> finishedRequests);

    void shutdown();

    /**
     * What the store should know of a saved item: the request's group (session) and what a miss
     * costs to recompute, for cost-aware eviction.
     */
    record SaveHints(String requestId, String groupId, double recomputeCostMs) {
        public static final SaveHints NONE = new SaveHints(null, null, Double.NaN);
    }
}
