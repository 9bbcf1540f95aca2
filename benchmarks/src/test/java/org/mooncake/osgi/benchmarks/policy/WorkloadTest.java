package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.store.api.ObjectDataType;

class WorkloadTest {
    @SuppressWarnings("unchecked")
    private static Map<String, Long> of(Workload w, ObjectDataType t) {
        return ((Map<ObjectDataType, Map<String, Long>>) w.summary().get("by_type")).get(t);
    }

    @Test
    void seed600MatchesTheRecordedShapeOfTheReferenceGenerator() {
        Workload session = SessionWorkload.generate(600, 0.006, SessionWorkload.Mode.SESSION, 1);
        Workload full = SessionWorkload.generate(600, 0.006, SessionWorkload.Mode.FULL_HISTORY, 1);
        Map<String, Long> hidden = of(session, ObjectDataType.HIDDEN_STATE);
        // reference: 645 hidden objects, 565 read once, 1,321 requests over 35.6 s, KV 5,632 B each
        assertTrue(hidden.get("objects") > 450 && hidden.get("objects") < 850, "hidden objects " + hidden);
        assertTrue(hidden.get("read_once") > 0.75 * hidden.get("objects"), "most hidden states are read once: " + hidden);
        assertTrue(session.requests().size() > 1000 && session.requests().size() < 2200);
        assertEquals(5632, SessionWorkload.kvBlockBytes(0.006));
        assertTrue(of(full, ObjectDataType.HIDDEN_STATE).get("reads") > 3 * hidden.get("reads"),
                "full_history re-reads hidden states every round");
        assertEquals(of(session, ObjectDataType.KVCACHE), of(full, ObjectDataType.KVCACHE), "modes differ only in hidden reads");
        double timeSpan = (double) session.summary().get("duration_s");
        assertTrue(timeSpan > 25 && timeSpan < 50, "duration " + timeSpan);
    }

    /** Private uploads carry the hint, shared images and KV blocks do not; the hint can be taken away. */
    @Test
    void privateUploadsAreHintedAsReadByTheirGroupOnly() {
        Workload w = SessionWorkload.generate(100, 0.006, SessionWorkload.Mode.SESSION, 2);
        long hinted = 0;
        for (Request r : w.requests()) {
            for (Access a : r.accesses()) {
                boolean privateUpload = a.key().startsWith("vid-") || a.key().startsWith("img-") && !a.key().startsWith("img-pub-");
                assertEquals(privateUpload, a.groupOnly(), a.key());
                hinted += a.groupOnly() ? 1 : 0;
            }
        }
        assertTrue(hinted > 0, "some sessions upload images");
        Workload plain = w.withoutGroupOnlyHints();
        assertEquals(w.accessCount(), plain.accessCount());
        for (int i = 0; i < w.requests().size(); i++) {
            Request r = w.requests().get(i);
            Request p = plain.requests().get(i);
            assertEquals(r.timeMs(), p.timeMs());
            for (int j = 0; j < r.accesses().size(); j++) {
                assertEquals(r.accesses().get(j).withGroupOnly(false), p.accesses().get(j));
            }
        }
    }

    @Test
    void firstAccessesAreMarkedOncePerKey() {
        Workload w = SessionWorkload.generate(50, 0.006, SessionWorkload.Mode.SESSION, 2);
        long firsts = w.requests().stream().flatMap(r -> r.accesses().stream()).filter(Access::first).count();
        long keys = w.requests().stream().flatMap(r -> r.accesses().stream()).map(Access::key).distinct().count();
        assertEquals(keys, firsts);
    }

    @Test
    void aTraceReplaysItsBlocksAsAPrefixChainAndSynthesisesImages(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("t.jsonl");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            b.append("{\"timestamp\": ").append(i * 10).append(", \"input_length\": 1000, \"output_length\": 10, \"hash_ids\": [0, ")
                    .append(i % 40 + 1).append(", ").append(1000 + i).append("]}\n");
        }
        Files.writeString(trace, b);
        Workload kv = TraceWorkload.read(trace, 0.006, false, 1);
        assertEquals(600, kv.accessCount());
        assertEquals(2, kv.requests().getFirst().accesses().get(2).prefixIndex());
        Workload mixed = TraceWorkload.read(trace, 0.006, true, 1);
        long images = mixed.requests().stream().filter(r -> r.accesses().getFirst().type() == ObjectDataType.HIDDEN_STATE).count();
        assertTrue(images > 20 && images < 120, "about 30% of conversations carry an image: " + images);
    }

    @Test
    void aMalformedTraceLineIsNamed(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("bad.jsonl");
        Files.writeString(trace, "{\"timestamp\": 0, \"hash_ids\": [1]}\n{\"timestamp\": 5, \"hash_ids\": \n");
        IOException e = assertThrows(IOException.class, () -> TraceWorkload.read(trace, 0.006, false, 1));
        assertTrue(e.getMessage().contains("bad.jsonl:2"), e.getMessage());
        Files.writeString(trace, "{\"timestamp\": \"soon\", \"hash_ids\": [1]}\n");
        assertTrue(assertThrows(IOException.class, () -> TraceWorkload.read(trace, 0.006, false, 1)).getMessage()
                .contains("numeric timestamp"));
    }

    /** Lines that parse but would replay as something else are refused too, by line. */
    @Test
    void aTraceThatWouldReplayWrongIsRefused(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("t.jsonl");
        String good = "{\"timestamp\": 0, \"hash_ids\": [1, 2]}\n";
        for (String[] bad : new String[][] {
                {good + "{\"timestamp\": 1, \"hash_ids\": [3, {\"id\": 4}]}\n", "t.jsonl:2: hash_ids[1] is not a block id"},
                {good + "{\"timestamp\": 1, \"hash_ids\": [3]} {\"timestamp\": 2}\n", "t.jsonl:2: not JSON"},
                {"{\"timestamp\": 1, \"hash_ids\": [3], \"hash_ids\": [4]}\n", "t.jsonl:1: not JSON"},
                {"[1, 2]\n", "t.jsonl:1: needs a numeric timestamp"},
                {"", "no requests"},
                {"\n  \n", "no requests (2 lines"}}) {
            Files.writeString(trace, bad[0]);
            IOException e = assertThrows(IOException.class, () -> TraceWorkload.read(trace, 0.006, false, 1), bad[0]);
            assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
        }
        Files.writeString(trace, good + "\n{\"timestamp\": 3, \"hash_ids\": [\"1\", 9]}\n");
        assertEquals(2, TraceWorkload.read(trace, 0.006, false, 1).requests().size(), "blank lines are skipped, text ids taken");
    }

    private static double hiddenShareOfNewBytes(Workload w, int from, int to) {
        long hidden = 0;
        long all = 0;
        for (Request r : w.requests().subList(from, to)) {
            for (Access a : r.accesses()) {
                if (a.first()) {
                    all += a.sizeBytes();
                    hidden += a.type() == ObjectDataType.HIDDEN_STATE ? a.sizeBytes() : 0;
                }
            }
        }
        return (double) hidden / all;
    }

    @Test
    void adversarialWorkloadsHaveTheirShape() {
        Workload loop = AdversarialWorkloads.make("loop", 50, 0.006, 1).workload();
        assertEquals(12_000, loop.accessCount());
        Workload drift = AdversarialWorkloads.make("drift", 600, 0.006, 1).workload();
        int n = drift.requests().size();
        double early = hiddenShareOfNewBytes(drift, 0, n / 4);
        double late = hiddenShareOfNewBytes(drift, 3 * n / 4, n);
        assertTrue(early < 0.15 && late > 0.24, "hidden share of new bytes should drift up: " + early + " then " + late);
        Workload noise = AdversarialWorkloads.make("noise", 50, 0.006, 1).workload();
        assertTrue(noise.requests().stream().flatMap(r -> r.accesses().stream()).anyMatch(a -> a.hintMs() != a.costMs()));
        assertThrows(IllegalArgumentException.class, () -> AdversarialWorkloads.make("nope", 50, 0.006, 1));
    }
}
