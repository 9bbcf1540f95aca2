package org.mooncake.osgi.policy.wtinylfu;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;

import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * Victims in the order W-TinyLFU evicts them, as Caffeine's {@code evictFromWindow} and {@code
 * evictFromMain} pick them, with admission emulated: where Caffeine would refuse a newcomer, the
 * newcomer is handed out as the next victim. The window's overflow (the objects written since the
 * last round, beyond the window's budget) moves to probation, and each such candidate duels the
 * probation queue's LRU object: the more frequent stays, the other is a victim. When candidates
 * run out, the window's objects duel on; when victims run out, protected and then the window give
 * them up in LRU order.
 *
 * <p>A walk only reads and hands out: what the master takes leaves the space when it says so. An
 * object the walk may not hand out (leased, soft-pinned in pass 1) is passed over: as a victim it
 * stays, as a candidate it is admitted. Objects handed out in this plan are passed over too.
 */
final class VictimWalk {
    /** Caffeine's: a candidate this frequent is admitted against a more frequent victim 1 time in 128. */
    static final int ADMIT_HASHDOS_THRESHOLD = 6;

    private final Space space;
    private final long planId;
    private final Predicate<CandidateView> may;
    private final SplittableRandom random;
    final List<Node> victims = new ArrayList<>();
    private long bytes;
    /** Candidates admitted and refused in this walk. */
    long admitted;
    long refused;

    VictimWalk(Space space, long planId, Predicate<CandidateView> may, SplittableRandom random) {
        this.space = space;
        this.planId = planId;
        this.may = may;
        this.random = random;
    }

    /** Hands out victims with admission until {@code wanted} bytes are planned or nothing is left. */
    VictimWalk withAdmission(long wanted) {
        Node candidate = space.overflowWindow();
        AccessQueue.Part candidateFrom = AccessQueue.Part.PROBATION;
        AccessQueue.Part victimFrom = AccessQueue.Part.PROBATION;
        Node victim = space.probation.head;
        while (bytes < wanted) {
            if (candidate == null && candidateFrom == AccessQueue.Part.PROBATION) {
                candidate = space.window.head;
                candidateFrom = AccessQueue.Part.WINDOW;
            }
            if (candidate == null && victim == null) {
                if (victimFrom == AccessQueue.Part.PROBATION) {
                    victim = space.protectedQueue.head;
                    victimFrom = AccessQueue.Part.PROTECTED;
                    continue;
                } else if (victimFrom == AccessQueue.Part.PROTECTED) {
                    victim = space.window.head;
                    victimFrom = AccessQueue.Part.WINDOW;
                    continue;
                }
                break;
            }
            if (victim != null && passedOver(victim)) {
                victim = victim.next;
            } else if (candidate != null && passedOver(candidate)) {
                candidate = candidate.next;
            } else if (victim == null) {
                candidate = handOut(candidate);
            } else if (candidate == null) {
                victim = handOut(victim);
            } else if (candidate == victim) {
                victim = handOut(victim);
                candidate = null;
            } else if (candidate.weight > space.maximum()) {
                candidate = handOut(candidate);
            } else if (admit(candidate, victim)) {
                admitted++;
                victim = handOut(victim);
                candidate = candidate.next;
            } else {
                refused++;
                candidate = handOut(candidate);
            }
        }
        return this;
    }

    /** Hands out the rest in plain order, probation, protected, window, each LRU first, until {@code wanted} bytes more. */
    VictimWalk inOrder(long wanted) {
        long until = bytes + wanted;
        for (AccessQueue q : new AccessQueue[] {space.probation, space.protectedQueue, space.window}) {
            for (Node n = q.head; n != null && bytes < until;) {
                n = passedOver(n) ? n.next : handOut(n);
            }
        }
        return this;
    }

    private boolean passedOver(Node n) {
        return n.plannedIn == planId || !may.test(n.view);
    }

    /** Hands {@code n} out and returns the node after it. */
    private Node handOut(Node n) {
        n.plannedIn = planId;
        victims.add(n);
        bytes += n.weight;
        return n.next;
    }

    private boolean admit(Node candidate, Node victim) {
        int candidateFrequency = space.sketch.frequency(candidate.keyHash());
        int victimFrequency = space.sketch.frequency(victim.keyHash());
        if (candidateFrequency > victimFrequency) {
            return true;
        }
        return candidateFrequency >= ADMIT_HASHDOS_THRESHOLD && (random.nextInt() & 127) == 0;
    }
}
