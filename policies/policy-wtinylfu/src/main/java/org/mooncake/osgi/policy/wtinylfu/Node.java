package org.mooncake.osgi.policy.wtinylfu;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/** One object the policy knows, linked into one of the space's three queues. */
final class Node {
    final ObjectKey key;
    /** The view the master last showed with an event: its current lease and version. */
    CandidateView view;
    /** Its size in bytes, the weight W-TinyLFU budgets. */
    long weight;
    AccessQueue queue;
    Node previous;
    Node next;
    /** The plan that last handed it out; a plan skips what it has handed out already. */
    long plannedIn;
    /** The master told us it took this object. */
    boolean evicted;

    Node(CandidateView view) {
        this.key = view.key();
        this.view = view;
        this.weight = view.sizeBytes();
    }

    int keyHash() {
        return view.keyHash();
    }
}
