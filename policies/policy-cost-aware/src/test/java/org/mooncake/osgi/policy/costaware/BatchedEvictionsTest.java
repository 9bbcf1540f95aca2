package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.ToDoubleFunction;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * A round tells the policy its victims in batches of any size; the policy must learn from a
 * batch exactly what it learns from the same victims one call at a time (ghosts, eviction counts,
 * group classes), or its decisions would depend on how the master happens to call it: runs of one
 * group or one model cell, and ghosts grouped by stripe, must come out as if taken one by one.
 */
class BatchedEvictionsTest {
    /**
     * Sessions of a few objects each (runs of one group id, as a round meets them), some without a
     * group, some put as read by their group only.
     */
    private static List<TestCandidate> victims(int n, Random r) {
        List<TestCandidate> out = new ArrayList<>();
        String[] sessions = new String[200];
        for (int s = 0; s < sessions.length; s++) {
            sessions[s] = "session-" + s;
        }
        for (int i = 0; i < n; i++) {
            String group = r.nextInt(10) == 0 ? null : sessions[(i / 7) % sessions.length];
            ObjectDataType type = r.nextInt(20) == 0 ? ObjectDataType.HIDDEN_STATE : ObjectDataType.KVCACHE;
            out.add(new TestCandidate(ObjectKey.of("o" + i), i, type, type == ObjectDataType.HIDDEN_STATE ? 16_384 : 1_024,
                    Double.NaN, 1_000 + r.nextInt(50_000), r.nextInt(5), group, group != null && r.nextInt(4) == 0));
        }
        return out;
    }

    @Test
    void aBatchTeachesWhatTheSameVictimsOneByOneTeach() {
        Random r = new Random(7);
        CostAwarePolicy oneByOne = new CostAwarePolicy();
        CostAwarePolicy batched = new CostAwarePolicy();
        List<TestCandidate> all = victims(5_000, r);
        long now = 100_000;
        for (TestCandidate v : all) { // writes first, so that groups have a history of their own
            oneByOne.written(v, v.lastAccessMs());
            batched.written(v, v.lastAccessMs());
            if (v.hitCount() > 2) {
                oneByOne.hit(v, v.lastAccessMs() - 10, v.lastAccessMs());
                batched.hit(v, v.lastAccessMs() - 10, v.lastAccessMs());
            }
        }
        EvictionRequest learn = new EvictionRequest(now, 1, 1L << 30, 1L << 29, 1L << 20, 0.01, List.of());
        oneByOne.score(learn); // learns when a group has ended, so that group-only victims of ended groups are classed so
        batched.score(learn);
        for (int i = 0; i < all.size();) {
            int n = Math.min(all.size() - i, 1 + r.nextInt(1_100));
            CandidateView[] batch = all.subList(i, i + n).toArray(new CandidateView[1_100]); // longer than the batch, as the master's
            for (int j = 0; j < n; j++) {
                oneByOne.evicted(batch[j], now);
            }
            batched.evicted(batch, n, now);
            i += n;
        }
        assertEquals(oneByOne.ghostsHeld(), batched.ghostsHeld());
        assertTrue(batched.ghostsHeld() > 0);
        // a third come back: each return reads the victim's ghost and teaches the model with it
        for (int i = 0; i < all.size(); i += 3) {
            oneByOne.written(all.get(i), now + 5_000);
            batched.written(all.get(i), now + 5_000);
        }
        assertEquals(oneByOne.ghostsHeld(), batched.ghostsHeld());
        EvictionRequest request = new EvictionRequest(now + 10_000, 1, 1L << 30, 1L << 29, 1L << 20, 0.01, List.of());
        ToDoubleFunction<CandidateView> a = oneByOne.score(request);
        ToDoubleFunction<CandidateView> b = batched.score(request);
        for (TestCandidate v : victims(2_000, new Random(8))) {
            assertEquals(a.applyAsDouble(v), b.applyAsDouble(v), "score of " + v);
        }
        assertEquals(oneByOne.describe(), batched.describe());
        assertTrue(batched.model().readAgainShare(GroupActivity.ENDED, 1) >= 0, "some victims were of the ended class");
        for (ObjectDataType t : ObjectDataType.values()) { // every cell of the model, not only where scores fall
            for (int cls = 0; cls < ReuseModel.CLASSES; cls++) {
                for (int bucket = 0; bucket < ReuseModel.AGE_BUCKETS; bucket++) {
                    long idle = (long) Math.pow(2, bucket / 2.0);
                    assertEquals(oneByOne.model().density(t, cls, idle), batched.model().density(t, cls, idle),
                            t + " class " + cls + " bucket " + bucket);
                }
            }
        }
    }
}
