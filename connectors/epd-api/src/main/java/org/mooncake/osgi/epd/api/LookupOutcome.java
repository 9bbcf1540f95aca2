package org.mooncake.osgi.epd.api;

/**
 * What the encoder-cache scheduler role found for an item (vLLM's tri-state look-up). A HIT
 * promises nothing about later: a load that then finds the object gone recomputes locally.
 */
public enum LookupOutcome {
    /** A complete hidden state is in the store: load it instead of running the encoder. */
    HIT,
    /** Not known yet, or another process is writing it: defer the request and ask again. */
    PENDING,
    /** Not in the store: run the encoder here. */
    MISS
}
