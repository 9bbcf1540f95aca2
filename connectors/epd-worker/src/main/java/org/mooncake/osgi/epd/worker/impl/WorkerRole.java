package org.mooncake.osgi.epd.worker.impl;

import java.util.Locale;

/**
 * What a worker process does with a request. An encoder runs the vision encoder on each media
 * item and saves its hidden state; a prefill loads hidden states (encoding what it cannot load),
 * computes the prompt's KV and saves it, answering the first token; a decode loads the KV and
 * generates the rest; an aggregated worker does it all itself, without the store.
 */
enum WorkerRole {
    ENCODER(true, false), PREFILL(true, true), DECODE(false, true), AGGREGATED(false, false);

    /** Whether it needs the hidden-state connector, and the KV connector. */
    final boolean hiddenStates;
    final boolean kv;

    WorkerRole(boolean hiddenStates, boolean kv) {
        this.hiddenStates = hiddenStates;
        this.kv = kv;
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static WorkerRole parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("role must be encoder, prefill, decode or aggregated, was " + s);
        }
    }
}
