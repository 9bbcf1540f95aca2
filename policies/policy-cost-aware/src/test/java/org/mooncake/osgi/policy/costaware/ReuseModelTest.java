package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;

class ReuseModelTest {
    private static final ObjectDataType KV = ObjectDataType.KVCACHE;
    private static final ObjectDataType HIDDEN = ObjectDataType.HIDDEN_STATE;

    @Test
    void aColdModelRanksByAgeAlone() {
        ReuseModel m = new ReuseModel();
        assertTrue(m.density(KV, 0, 10) > m.density(KV, 0, 10_000));
        assertEquals(m.density(KV, 0, 5_000), m.density(HIDDEN, 2, 5_000));
    }

    @Test
    void aClassThatIsReadAgainIsWorthMoreThanOneThatIsNot() {
        ReuseModel m = new ReuseModel();
        for (int i = 0; i < 1000; i++) {
            m.recordHit(KV, 1, 2_000);
            m.recordEviction(HIDDEN, 0, 2_000);
        }
        m.refresh(1_000_000, 8);
        assertTrue(m.density(KV, 1, 1_000) > 100 * m.density(HIDDEN, 0, 1_000),
                m.density(KV, 1, 1_000) + " vs " + m.density(HIDDEN, 0, 1_000));
    }

    @Test
    void pastTheAgeOfItsLastHitsAClassIsWorthLittle() {
        ReuseModel m = new ReuseModel();
        for (int i = 0; i < 1000; i++) {
            m.recordHit(KV, 1, 500);
            m.recordEviction(KV, 1, 60_000);
        }
        m.refresh(1_000_000, 8);
        assertTrue(m.density(KV, 1, 100) > 10 * m.density(KV, 1, 5_000));
    }

    @Test
    void aWriteBackAfterAnEvictionCountsAsTheHitItWouldHaveBeen() {
        ReuseModel m = new ReuseModel();
        for (int i = 0; i < 1000; i++) {
            m.recordEviction(HIDDEN, 0, 1_000);
        }
        m.refresh(1_000_000, 8);
        double before = m.density(HIDDEN, 0, 1_000);
        for (int i = 0; i < 1000; i++) {
            m.recordReturn(HIDDEN, 0, 3_000, 1_000);
        }
        m.refresh(1_000_000, 8);
        assertTrue(m.density(HIDDEN, 0, 1_000) > 10 * before, before + " -> " + m.density(HIDDEN, 0, 1_000));
    }

    @Test
    void residentsThatNeverHitLowerTheirClassAsSurvivalCountsTheCensored() {
        ReuseModel m = new ReuseModel();
        for (int i = 0; i < 20; i++) {
            m.recordHit(HIDDEN, 0, 3_000);
        }
        m.refresh(1_000_000, 8);
        double hitsOnly = m.density(HIDDEN, 0, 2_000);
        for (int i = 0; i < 500; i++) {
            m.countResident(HIDDEN, 0, 20_000);
        }
        m.refresh(1_000_000, 8);
        assertTrue(m.density(HIDDEN, 0, 2_000) < hitsOnly / 10,
                "500 objects idle for 20 s without a hit left the estimate at " + m.density(HIDDEN, 0, 2_000) + " from " + hitsOnly);
        m.refresh(1_000_000, 8);
        assertTrue(m.density(HIDDEN, 0, 2_000) > hitsOnly / 2, "residents are a snapshot of one round, not history");
    }

    @Test
    void oldEventsFadeSoTheModelFollowsDrift() {
        ReuseModel m = new ReuseModel();
        for (int i = 0; i < 10_000; i++) {
            m.recordHit(HIDDEN, 0, 1_000);
        }
        m.refresh(1_000, 8);
        double reused = m.density(HIDDEN, 0, 500);
        for (int i = 0; i < 10_000; i++) {
            m.recordEviction(HIDDEN, 0, 1_000);
        }
        m.refresh(1_000, 8);
        assertTrue(m.density(HIDDEN, 0, 500) < reused / 100, "the old hits still dominate");
    }

    @RepeatedTest(5)
    void eventsFromManyThreadsAreAllCountedWhileTheEvictionThreadRefreshes() throws Exception {
        ReuseModel m = new ReuseModel();
        int threads = 4;
        int each = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    m.recordHit(KV, i % 5, i % 3000);
                }
            }));
        }
        start.countDown();
        while (workers.stream().anyMatch(Thread::isAlive)) {
            m.refresh(Long.MAX_VALUE, 8);
        }
        m.refresh(Long.MAX_VALUE, 8);
        assertEquals((long) threads * each, m.events());
    }
}
