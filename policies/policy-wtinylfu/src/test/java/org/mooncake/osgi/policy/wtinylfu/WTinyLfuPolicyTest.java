package org.mooncake.osgi.policy.wtinylfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** The policy through its SPI: what it plans, what it forgets, how it ranks. */
class WTinyLfuPolicyTest {
    private final WTinyLfuPolicy policy = new WTinyLfuPolicy();

    private static EvictionRequest request(long now, int pass, long used, long target) {
        return new EvictionRequest(now, pass, 1_000_000, used, target, (double) target / 1_000_000, List.of());
    }

    private static List<String> keys(Iterator<CandidateView> plan, int max) {
        List<String> out = new ArrayList<>();
        while (out.size() < max && plan.hasNext()) {
            out.add(plan.next().key().key());
        }
        return out;
    }

    @Test
    void aRoundRefusesTheNewcomersThatLoseTheDuel() {
        List<TestCandidate> old = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            old.add(TestCandidate.of("old" + i, i + 1, 1_000, i));
        }
        old.forEach(c -> policy.written(c, c.lastAccessMs()));
        policy.plan(request(100, 1, 20_000, 0)); // sizes the space: the old objects leave the window
        old.forEach(c -> policy.hit(c.readAt(200, 1), 0, 200));
        old.forEach(c -> policy.hit(c.readAt(300, 1), 0, 300));
        TestCandidate newcomer = TestCandidate.of("new", 100, 1_000, 400);
        policy.written(newcomer, 400);
        List<String> victims = keys(policy.plan(request(500, 1, 21_000, 1_000)), 1);
        assertEquals(List.of("new"), victims, "used once, it loses to objects used three times");
        assertTrue(policy.learned().get("newcomers_refused") >= 1);
    }

    @Test
    void aSoftPinnedObjectComesOnlyInPassTwoAfterTheOthers() {
        TestCandidate pinned = new TestCandidate(org.mooncake.osgi.store.api.ObjectKey.of("pinned"), 1, 1_000, 1, 1, 10_000);
        TestCandidate plain = TestCandidate.of("plain", 2, 1_000, 2);
        policy.written(pinned, 1);
        policy.written(plain, 2);
        assertEquals(List.of("plain"), keys(policy.plan(request(100, 1, 2_000, 2_000)), 10));
        WTinyLfuPolicy fresh = new WTinyLfuPolicy();
        fresh.written(pinned, 1);
        fresh.written(plain, 2);
        assertEquals(List.of("plain", "pinned"), keys(fresh.plan(request(100, 2, 2_000, 2_000)), 10),
                "pinned written first, yet last");
    }

    @Test
    void anObjectTheMasterPassedOverIsForgotten() {
        TestCandidate removed = TestCandidate.of("removed", 1, 1_000, 1);
        TestCandidate kept = TestCandidate.of("kept", 2, 1_000, 2);
        TestCandidate taken = TestCandidate.of("taken", 3, 1_000, 3);
        policy.written(removed, 1);
        policy.written(taken, 3);
        policy.written(kept, 2);
        Iterator<CandidateView> plan = policy.plan(request(100, 1, 3_000, 2_000));
        assertEquals(List.of("removed", "taken", "kept"), keys(plan, 3), "window order, oldest write first");
        // the master could not claim 'removed' (a client removed it), took 'taken', and read 'kept' ahead only
        policy.evicted(taken, 100);
        policy.plan(request(200, 1, 2_000, 0));
        assertEquals(1.0, policy.learned().get("objects_tracked"), "'removed' forgotten, 'kept' still known");
        assertEquals(List.of("kept"), keys(policy.plan(request(300, 1, 2_000, 1_000)), 10));
    }

    /** The DS descriptor bnd generated: the ranking the framework sees. */
    @Test
    void itRanksBelowEveryOtherPolicy() throws IOException {
        String xml;
        try (InputStream in = getClass().getResourceAsStream("/OSGI-INF/" + WTinyLfuPolicy.class.getName() + ".xml")) {
            assertTrue(in != null, "no DS descriptor: was the bundle processed?");
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher m = Pattern.compile("name=\"service.ranking\" type=\"Integer\" value=\"(-?\\d+)\"").matcher(xml);
        assertTrue(m.find(), xml);
        int ranking = Integer.parseInt(m.group(1));
        assertTrue(ranking < 0, "lease-lru, the lowest of the others, ranks 0; this ranks " + ranking);
        assertTrue(xml.contains("value=\"" + WTinyLfuPolicy.NAME + "\""), xml);
    }
}
