package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What disaggregation relies on: KV computed in pieces, or moved through the store, is the same KV. */
class IncrementalDecodingTest {
    private static final Model MODEL = Fixtures.MODEL;

    @Test
    void decodingStepByStepEqualsRecomputingThePromptWithTheAnswer() {
        List<PromptPart> prompt = Fixtures.prompt(Fixtures.encode(MODEL, 2));
        KvCache incremental = MODEL.newCache();
        int[] answer = Fixtures.continueDecoding(MODEL, incremental, MODEL.prefill(prompt, incremental), 12);
        assertEquals(12, answer.length, "this answer runs the full length");

        // Prefill the prompt and all but the last generated token at once: same next token, same KV bits.
        int fed = answer.length - 1;
        int[] generatedBytes = java.util.Arrays.copyOf(answer, fed);
        List<PromptPart> extended = new ArrayList<>(prompt);
        extended.add(new PromptPart.Text(new String(toBytes(generatedBytes), java.nio.charset.StandardCharsets.ISO_8859_1)));
        KvCache recomputed = MODEL.newCache();
        int next = MODEL.prefill(extended, recomputed);
        assertEquals(answer[fed], next);
        assertEquals(incremental.length(), recomputed.length());
        assertArrayEquals(incremental.export(0, incremental.length()), recomputed.export(0, recomputed.length()));
    }

    @Test
    void exportAppendRoundTripContinuesBitIdentically() {
        List<PromptPart> prompt = Fixtures.prompt(Fixtures.encode(MODEL, 3));
        KvCache prefill = MODEL.newCache();
        int first = MODEL.prefill(prompt, prefill);
        int length = prefill.length();

        float[] flat = new float[length * prefill.floatsPerToken() + 7];
        prefill.export(0, length, flat, 7);
        KvCache loaded = MODEL.newCache();
        loaded.append(flat, 7, length);
        assertArrayEquals(prefill.export(0, length), loaded.export(0, length));

        KvCache reference = prefill.copy();
        int[] fromReference = Fixtures.continueDecoding(MODEL, reference, first, 16);
        int[] fromLoaded = Fixtures.continueDecoding(MODEL, loaded, first, 16);
        assertArrayEquals(fromReference, fromLoaded);
        assertArrayEquals(reference.export(0, reference.length()), loaded.export(0, loaded.length()));
        assertArrayEquals(Fixtures.answer(MODEL, Fixtures.encode(MODEL, 3)), fromLoaded);
        assertEquals(length, prefill.length(), "copy() leaves the original alone");
    }

    @Test
    void exportLayoutIsLayerThenKOrVThenTokenThenDim() {
        KvCache cache = MODEL.newCache();
        MODEL.prefill(Fixtures.prompt(Fixtures.encode(MODEL, 1)), cache);
        int n = cache.length();
        int dim = cache.kvDim();
        float[] all = cache.export(0, n);
        assertEquals(n * cache.layers() * 2 * dim, all.length);
        for (int t : new int[] {0, 5, n - 1}) {
            float[] one = cache.export(t, t + 1);
            for (int layer = 0; layer < cache.layers(); layer++) {
                for (int kv = 0; kv < 2; kv++) {
                    for (int d = 0; d < dim; d++) {
                        assertEquals(all[((layer * 2 + kv) * n + t) * dim + d], one[(layer * 2 + kv) * dim + d]);
                    }
                }
            }
        }
    }

    @Test
    void prefillFromACachedPrefixEqualsAFullPrefill() {
        List<PromptPart> prompt = Fixtures.prompt(Fixtures.encode(MODEL, 4));
        KvCache full = MODEL.newCache();
        int expected = MODEL.prefill(prompt, full);
        for (int cached : new int[] {1, 16, 30, full.length() - 1}) {
            KvCache partial = MODEL.newCache();
            partial.append(full.export(0, cached), 0, cached);
            List<PromptPart> promptForRest = cached >= 28 ? Prompts.layoutOnly(prompt) : prompt;
            assertEquals(expected, MODEL.prefillFrom(promptForRest, partial), "cached " + cached);
            assertArrayEquals(full.export(0, full.length()), partial.export(0, partial.length()));
        }
        KvCache done = full.copy();
        assertThrows(IllegalArgumentException.class, () -> MODEL.prefillFrom(prompt, done));
    }

    @Test
    void truncateForgetsTheTailOnly() {
        List<PromptPart> prompt = Fixtures.prompt(Fixtures.encode(MODEL, 0));
        KvCache cache = MODEL.newCache();
        int first = MODEL.prefill(prompt, cache);
        int length = cache.length();
        float[] before = cache.export(0, length);
        int[] answer = Fixtures.continueDecoding(MODEL, cache, first, 8);
        cache.truncate(length);
        assertArrayEquals(before, cache.export(0, length));
        assertArrayEquals(answer, Fixtures.continueDecoding(MODEL, cache, first, 8));
    }

    private static byte[] toBytes(int[] ids) {
        byte[] bytes = new byte[ids.length];
        for (int i = 0; i < ids.length; i++) {
            bytes[i] = (byte) ids[i];
        }
        return bytes;
    }
}
