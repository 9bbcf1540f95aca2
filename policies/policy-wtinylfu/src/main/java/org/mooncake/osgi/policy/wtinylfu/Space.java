package org.mooncake.osgi.policy.wtinylfu;

import java.util.HashMap;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * The objects the policy knows, as W-TinyLFU holds them: a small admission window and a main
 * space split into probation and protected, each an LRU queue, with budgets in bytes. New objects
 * enter the window; a hit in probation promotes to protected; protected over its budget demotes
 * its LRU end to probation. Every use counts in the {@link FrequencySketch}; the {@link
 * WindowClimber} moves budget between window and protected. Not thread-safe: the policy's lock
 * guards it.
 */
final class Space {
    /** Caffeine's initial split: 1% window; of the main space, 80% protected. */
    static final double INITIAL_WINDOW_SHARE = 0.01;
    static final double PROTECTED_SHARE_OF_MAIN = 0.80;

    final AccessQueue window = new AccessQueue(AccessQueue.Part.WINDOW);
    final AccessQueue probation = new AccessQueue(AccessQueue.Part.PROBATION);
    final AccessQueue protectedQueue = new AccessQueue(AccessQueue.Part.PROTECTED);
    final FrequencySketch sketch = new FrequencySketch();
    final WindowClimber climber = new WindowClimber();
    private final Map<ObjectKey, Node> nodes = new HashMap<>();
    /** Bytes the store keeps after a round: W-TinyLFU's maximum; 0 before the first plan. */
    private long maximum;
    private double windowShare = INITIAL_WINDOW_SHARE;
    private double protectedShare = PROTECTED_SHARE_OF_MAIN * (1 - INITIAL_WINDOW_SHARE);

    long maximum() {
        return maximum;
    }

    long windowMaximum() {
        return (long) (windowShare * maximum);
    }

    long protectedMaximum() {
        return (long) (protectedShare * maximum);
    }

    double windowShare() {
        return windowShare;
    }

    double protectedShare() {
        return protectedShare;
    }

    int size() {
        return nodes.size();
    }

    long weight() {
        return window.weight + probation.weight + protectedQueue.weight;
    }

    Node node(ObjectKey key) {
        return nodes.get(key);
    }

    /** Budgets follow the bytes the store keeps; window and protected keep their shares of it. */
    void resize(long bytesKept) {
        maximum = Math.max(1, bytesKept);
        climber.sizeFor(maximum);
    }

    /** A put: a new object enters the window (a miss, for the climber); a new version is a use. */
    void written(CandidateView view) {
        Node n = nodes.get(view.key());
        if (n != null) {
            reweigh(n, view);
            use(n);
            return;
        }
        n = new Node(view);
        nodes.put(n.key, n);
        sketch.ensureCapacity(nodes.size());
        sketch.increment(n.keyHash());
        climber.recordMiss();
        if (maximum > 0 && n.weight > windowMaximum()) {
            window.addFirst(n); // as Caffeine: larger than the whole window, it is the window's next to leave
        } else {
            window.addLast(n);
        }
    }

    /** A read that hit; an object the policy never saw written (bound late) joins the window. */
    void hit(CandidateView view) {
        Node n = nodes.get(view.key());
        if (n == null) {
            n = new Node(view);
            nodes.put(n.key, n);
            sketch.ensureCapacity(nodes.size());
            window.addLast(n);
        } else {
            n.view = view;
        }
        climber.recordHit();
        use(n);
    }

    /** The master took the object: the version the policy knows, not a newer one written since. */
    void evicted(CandidateView view) {
        Node n = nodes.get(view.key());
        if (n != null && n.view.sequence() == view.sequence()) {
            n.evicted = true;
            forget(n);
        }
    }

    void forget(Node n) {
        n.queue.remove(n);
        nodes.remove(n.key);
    }

    private void reweigh(Node n, CandidateView view) {
        n.view = view;
        n.queue.weight += view.sizeBytes() - n.weight;
        n.weight = view.sizeBytes();
    }

    /** Counts a use and reorders: to the window's back, from probation to protected, to protected's back. */
    private void use(Node n) {
        sketch.increment(n.keyHash());
        switch (n.queue.part) {
            case WINDOW -> window.moveToBack(n);
            case PROBATION -> {
                probation.remove(n);
                if (maximum > 0 && n.weight > protectedMaximum()) {
                    probation.addLast(n);
                } else {
                    protectedQueue.addLast(n);
                }
            }
            case PROTECTED -> protectedQueue.moveToBack(n);
        }
    }

    /** Caffeine's maintenance after a drain: climb, then bring protected back within its budget. */
    void maintain() {
        if (maximum == 0) {
            return;
        }
        climber.determineAdjustment(maximum, sketch.sampleSize(), weight() >= maximum / 2);
        demoteFromProtected();
        long amount = climber.adjustment();
        if (amount > 0) {
            increaseWindow(amount);
        } else if (amount < 0) {
            decreaseWindow(-amount);
        }
    }

    private void demoteFromProtected() {
        long budget = protectedMaximum();
        while (protectedQueue.weight > budget && protectedQueue.head != null) {
            Node n = protectedQueue.head;
            protectedQueue.remove(n);
            probation.addLast(n);
        }
    }

    /** Takes budget from protected for the window, and the main space's LRU objects with it. */
    private void increaseWindow(long amount) {
        long quota = Math.min(amount, protectedMaximum());
        if (quota <= 0) {
            return;
        }
        shift(quota);
        demoteFromProtected();
        while (true) {
            Node n = probation.head;
            if (n == null || quota < n.weight) {
                n = protectedQueue.head;
            }
            if (n == null || quota < n.weight) {
                break;
            }
            quota -= n.weight;
            n.queue.remove(n);
            window.addLast(n);
        }
        shift(-quota);
        climber.carryOver(quota);
    }

    /** Gives window budget to protected; the window's LRU objects go to probation with it. */
    private void decreaseWindow(long amount) {
        long quota = Math.min(amount, Math.max(0, windowMaximum() - 1));
        if (quota <= 0) {
            climber.carryOver(0);
            return;
        }
        shift(-quota);
        while (window.head != null && quota >= window.head.weight) {
            Node n = window.head;
            quota -= n.weight;
            window.remove(n);
            probation.addLast(n);
        }
        shift(quota);
        climber.carryOver(-quota);
    }

    /** Moves {@code bytes} of budget from protected to the window (negative: back). */
    private void shift(long bytes) {
        double share = (double) bytes / maximum;
        windowShare += share;
        protectedShare -= share;
    }

    /** Moves the window's LRU objects to probation's back until the window is within budget; returns the first moved. */
    Node overflowWindow() {
        Node first = null;
        long budget = windowMaximum();
        while (window.weight > budget && window.head != null) {
            Node n = window.head;
            window.remove(n);
            probation.addLast(n);
            first = first == null ? n : first;
        }
        return first;
    }

    /** Whether {@code n} is still known as it was when it was handed out as {@code view}: no event on it since. */
    boolean holds(Node n, CandidateView view) {
        return nodes.get(n.key) == n && n.view == view;
    }
}
