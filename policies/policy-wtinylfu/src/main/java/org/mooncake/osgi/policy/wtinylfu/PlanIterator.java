package org.mooncake.osgi.policy.wtinylfu;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * A plan's victims from the space: those walked when the plan was made, then, if the master
 * wants more (victims it found taken or changed), further chunks of {@code chunkBytes} in the
 * space's plain order, each walked under the policy's lock. Remembers how far the master pulled,
 * so that the next plan can tell objects pulled and never taken ({@link #settle}).
 */
final class PlanIterator implements Iterator<CandidateView> {
    private final List<Node> nodes;
    private final List<CandidateView> views = new ArrayList<>();
    private final WTinyLfuPolicy policy;
    private final Space space;
    private final long planId;
    private final Predicate<CandidateView> may;
    private final long chunkBytes;
    private int pulled;
    private boolean exhausted;

    PlanIterator(List<Node> nodes, WTinyLfuPolicy policy, Space space, long planId, Predicate<CandidateView> may,
            long chunkBytes) {
        this.nodes = new ArrayList<>(nodes);
        this.policy = policy;
        this.space = space;
        this.planId = planId;
        this.may = may;
        this.chunkBytes = chunkBytes;
        nodes.forEach(n -> views.add(n.view));
        exhausted = chunkBytes <= 0;
    }

    @Override
    public boolean hasNext() {
        if (pulled == nodes.size() && !exhausted) {
            policy.locked(() -> {
                List<Node> more = new VictimWalk(space, planId, may, null).inOrder(chunkBytes).victims;
                more.forEach(n -> views.add(n.view));
                nodes.addAll(more);
                exhausted = more.isEmpty();
            });
        }
        return pulled < nodes.size();
    }

    @Override
    public CandidateView next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return views.get(pulled++);
    }

    /**
     * After the master's events are in: forgets the objects the master passed over, those it
     * pulled before the last one it took and that are still known as they were handed out. The
     * master takes victims in order and passes over only what it cannot claim: an object a client
     * removed or replaced (the SPI tells neither). What it pulled after its last victim was read
     * ahead and is still there. Under the lock.
     */
    void settle(Space s) {
        int lastTaken = pulled - 1;
        while (lastTaken >= 0 && !nodes.get(lastTaken).evicted) {
            lastTaken--;
        }
        for (int i = 0; i < lastTaken; i++) {
            if (s.holds(nodes.get(i), views.get(i))) {
                s.forget(nodes.get(i));
            }
        }
    }
}
