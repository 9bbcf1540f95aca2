package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * The group-only hint is checked against what happens: ended groups' group-only objects go first
 * only while few of them are read again. A connector that marks shared objects group-only (its
 * objects are read by others after their writer's session ended) loses the hint's effect.
 */
class GroupOnlyHintTest {
    private static final long NOW = 100_000;

    /** A hidden state of 1 MiB that costs 100 ms to recompute. */
    private static TestCandidate upload(String key, String group, boolean groupOnly, long lastAccessMs, long hitCount) {
        return new TestCandidate(ObjectKey.of(key), 0, ObjectDataType.HIDDEN_STATE, 1 << 20, 100, lastAccessMs, hitCount, group,
                groupOnly);
    }

    private static EvictionRequest request(long now) {
        return new EvictionRequest(now, 1, 1L << 30, 1L << 29, 1L << 20, 0.01, List.of());
    }

    /**
     * 100 groups each come back after 1 s (so a group quiet for 1.5 s has ended), then 100 groups
     * each write one group-only upload and go quiet; {@code readAgain} of those uploads are read
     * after their group ended, the others are evicted.
     */
    private static CostAwarePolicy taught(int readAgain) {
        CostAwarePolicy p = new CostAwarePolicy();
        for (int g = 0; g < 100; g++) {
            p.written(upload("t" + g, "t" + g, false, 0, 0), 10_000);
            p.written(upload("t" + g + "-next", "t" + g, false, 0, 0), 11_000);
        }
        p.score(request(NOW)); // learns the end
        for (int g = 0; g < 100; g++) {
            TestCandidate written = upload("u" + g, "u" + g, true, 50_000, 0);
            p.written(written, 50_000);
            if (g < readAgain) {
                p.hit(upload("u" + g, "u" + g, true, NOW, 1), 50_000, NOW);
            } else {
                p.evicted(written, NOW);
            }
        }
        p.score(request(NOW + 1)); // folds the events into the model
        return p;
    }

    private static double scoreOfAnEndedUpload(CostAwarePolicy p) {
        return p.score(request(NOW + 2)).applyAsDouble(upload("x", "u99", true, 50_000, 0));
    }

    @Test
    void anHonestHintIsFollowed() {
        CostAwarePolicy p = taught(3);
        assertEquals(CostAwarePolicy.GROUP_ENDED, scoreOfAnEndedUpload(p), "3% read again: the upload goes first");
        assertTrue(p.describe().contains("3.0% read again, hint followed"), p.describe());
        assertEquals(0.03, p.learned().get("group_only_read_again_share"), 1e-9);
        assertEquals(1.0, p.learned().get("group_only_hint_followed"));
        assertEquals(1023.0, p.learned().get("group_end_ms"), "1 s returns: the end is the upper end of their half-octave");
    }

    @Test
    void aHintThatProvesFalseIsIgnored() {
        CostAwarePolicy p = taught(40);
        double score = scoreOfAnEndedUpload(p);
        assertTrue(score < CostAwarePolicy.GROUP_ENDED, "40% read again: ranked by worth, was " + score);
        assertTrue(p.describe().contains("40.0% read again, hint ignored"), p.describe());
        assertEquals(0.0, p.learned().get("group_only_hint_followed"));
    }

    @Test
    void tooFewEndedObjectsLeaveTheHintFollowed() {
        CostAwarePolicy p = new CostAwarePolicy();
        assertTrue(p.describe().contains("hint followed, too few ended yet"), p.describe());
        assertEquals(java.util.Set.of("group_only_hint_followed", "ghosts_held", "learned_events"), p.learned().keySet(),
                "nothing learned yet: no end, no share");
    }
}
