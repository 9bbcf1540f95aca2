package org.mooncake.osgi.epd.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The encoder-cache (EC) connector of a process: hidden states (encoder outputs) go Encoder ->
 * Store -> Prefill through it. Registered as an OSGi service; its two roles follow vLLM's EC
 * connector: the {@linkplain #scheduler scheduler role} decides per step what to load, the
 * {@linkplain #worker worker role} moves the bytes. A process that serves several models (or
 * weight revisions) asks for the roles of each model's {@link KeyNamespace}; the two roles of one
 * namespace share their state, and asking again returns the same ones.
 */
@ProviderType
public interface EncoderCacheConnector {

    /** What this process does with hidden states: produce, consume or both. */
    ConnectorRole role();

    EncoderCacheScheduler scheduler(KeyNamespace namespace);

    EncoderCacheWorker worker(KeyNamespace namespace);
}
