package org.mooncake.osgi.epd.api;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The scheduler role: asked on the engine's scheduler thread, it never waits for the store.
 * Look-ups run on the connector's own threads, batched into one store round trip; until an
 * answer is in (or while another process is writing the item, or a load of it is in flight) an
 * item is PENDING and the engine defers the request. State of the step ({@link
 * #updateStateAfterAlloc}) is handed to the worker role by {@link #buildConnectorMeta}, which
 * resets it.
 */
@ProviderType
public interface EncoderCacheScheduler {

    /** HIT, PENDING or MISS for {@code itemId}, at once; an item not asked about before is looked up now. */
    LookupOutcome lookup(String itemId);

    /**
     * Waits until {@code itemId}'s look-up has an answer or {@code timeoutMs} pass (an engine that
     * has nothing else to do calls this instead of spinning); returns the outcome then.
     */
    LookupOutcome awaitLookup(String itemId, long timeoutMs) throws InterruptedException;

    /** The engine allotted encoder-cache space to the request's HIT item: load it in this step. */
    void updateStateAfterAlloc(String requestId, String itemId, TensorSpec expected);

    /** This step's loads, for the worker role; the step's state starts afresh. */
    EcStepMetadata buildConnectorMeta();

    /** What the worker role reported after the step: items it loaded, saved, or failed to. */
    void updateConnectorOutput(EcWorkerOutput output);

    /**
     * The request is over: whether its cache memory must outlive it (a save still under way) and
     * what to hand on with it (the items it saved).
     */
    RequestFinished requestFinished(String requestId);

    /** The outcome of {@link #requestFinished}. */
    record RequestFinished(boolean delayFree, Map<String, Object> transferParams) {
        public RequestFinished {
            transferParams = transferParams == null ? Map.of() : Map.copyOf(transferParams);
        }
    }
}
