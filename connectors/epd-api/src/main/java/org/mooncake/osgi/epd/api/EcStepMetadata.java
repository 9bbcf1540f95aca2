package org.mooncake.osgi.epd.api;

import java.util.List;

/** One step's work for the EC worker role: the items to load, each checked against what the engine expects. */
public record EcStepMetadata(long step, List<Load> loads) {
    public EcStepMetadata {
        loads = List.copyOf(loads);
    }

    /** Load {@code itemId}'s hidden state for {@code requestId}; it must be {@code expected}. */
    public record Load(String requestId, String itemId, TensorSpec expected) {
    }
}
