package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Answers must really depend on what flows through the store: the image, each hidden-state
 * element, each KV block, the weights revision. Otherwise an E/P/D run that lost or mixed up a
 * tensor would still "match" the aggregated run.
 */
class AnswerSensitivityTest {
    private static final Model MODEL = Fixtures.MODEL;
    private static final ModelConfig CFG = Fixtures.TINY;

    @Test
    void differentImagesGiveDifferentAnswers() {
        Set<String> answers = new HashSet<>();
        for (int kind = 0; kind < 5; kind++) {
            answers.add(MODEL.detokenize(Fixtures.answer(MODEL, Fixtures.encode(MODEL, kind))));
        }
        assertTrue(answers.size() >= 4, "distinct answers: " + answers);
    }

    @Test
    void differentQuestionsGiveDifferentAnswers() {
        HiddenState state = Fixtures.encode(MODEL, 1);
        Set<String> answers = new HashSet<>();
        for (String question : List.of("What is this?", "Describe the image.", "How many?", "Colour?")) {
            answers.add(MODEL.detokenize(MODEL.generate(
                    Prompts.chat(List.of(PromptPart.MediaItem.of("i", state), new PromptPart.Text(question))), 16)));
        }
        assertTrue(answers.size() >= 3, "distinct answers: " + answers);
    }

    @Test
    void addingOneToASingleHiddenStateElementChangesTheAnswer() {
        // One element per media row, +1.0 each (rows have an RMS of about 0.33). Measured over six
        // seeds and five images, 96% of such single-element changes move the 16-token answer.
        HiddenState state = Fixtures.encode(MODEL, 1);
        int[] base = Fixtures.answer(MODEL, state);
        int changed = 0;
        for (int row = 0; row < state.tokens(); row++) {
            float[] data = state.data().clone();
            data[row * state.width() + (row * 13) % state.width()] += 1f;
            if (!Arrays.equals(base, Fixtures.answer(MODEL, new HiddenState(state.tokens(), state.width(), data)))) {
                changed++;
            }
        }
        assertTrue(changed >= 14, "answers changed for " + changed + " of " + state.tokens() + " single-element edits");
    }

    @Test
    void negatingTheLargestHiddenStateElementChangesTheAnswer() {
        for (int kind = 0; kind < 3; kind++) {
            HiddenState state = Fixtures.encode(MODEL, kind);
            float[] data = state.data().clone();
            int largest = 0;
            for (int i = 1; i < data.length; i++) {
                if (Math.abs(data[i]) > Math.abs(data[largest])) {
                    largest = i;
                }
            }
            data[largest] = -data[largest];
            assertFalse(Arrays.equals(Fixtures.answer(MODEL, state),
                    Fixtures.answer(MODEL, new HiddenState(state.tokens(), state.width(), data))), "image " + kind);
        }
    }

    @Test
    void changingTheKRowsOfOneKvBlockChangesTheAnswer() {
        HiddenState state = Fixtures.encode(MODEL, 1);
        KvCache prefilled = MODEL.newCache();
        int first = MODEL.prefill(Fixtures.prompt(state), prefilled);
        int[] loaded = decodeFromBlocks(prefilled, first, blocks -> {
        });
        assertArrayEquals(Fixtures.answer(MODEL, state), loaded, "unchanged blocks reproduce the answer");

        // Block [0,16): negate its layer-0 K rows (layout [layer][k|v][token][dim]: the first 16*kvDim floats).
        int[] negated = decodeFromBlocks(prefilled, first, blocks -> {
            for (int i = 0; i < 16 * CFG.kvDim(); i++) {
                blocks.getFirst()[i] = -blocks.getFirst()[i];
            }
        });
        assertFalse(Arrays.equals(loaded, negated));

        // The last block, zeroed: what a decode worker sees if a block was never filled.
        int[] zeroed = decodeFromBlocks(prefilled, first, blocks -> Arrays.fill(blocks.getLast(), 0f));
        assertFalse(Arrays.equals(loaded, zeroed));
    }

    @Test
    void changingOneKFloatOfTheFirstBlockUsuallyChangesTheAnswer() {
        // One float of layer 0's K rows of tokens [0,16) (its largest, negated) only reaches the
        // answer through the decode steps' attention; it moves the answer for most images, not all.
        int changed = 0;
        for (int kind = 0; kind < 5; kind++) {
            HiddenState state = Fixtures.encode(MODEL, kind);
            KvCache prefilled = MODEL.newCache();
            int first = MODEL.prefill(Fixtures.prompt(state), prefilled);
            int[] loaded = decodeFromBlocks(prefilled, first, blocks -> {
            });
            int[] perturbed = decodeFromBlocks(prefilled, first, blocks -> {
                float[] block = blocks.getFirst();
                int largest = 0;
                for (int i = 1; i < 16 * CFG.kvDim(); i++) {
                    if (Math.abs(block[i]) > Math.abs(block[largest])) {
                        largest = i;
                    }
                }
                block[largest] = -block[largest];
            });
            if (!Arrays.equals(loaded, perturbed)) {
                changed++;
            }
        }
        assertTrue(changed >= 3, "answers changed for " + changed + " of 5 images");
    }

    @Test
    void anotherWeightsRevisionAnswersDifferently() {
        Model other = Model.create(CFG, Fixtures.SEED + 1);
        assertNotEquals(MODEL.encoderFingerprint(), other.encoderFingerprint());
        assertNotEquals(MODEL.kvFingerprint(), other.kvFingerprint());
        HiddenState mine = Fixtures.encode(MODEL, 1);
        HiddenState theirs = Fixtures.encode(other, 1);
        assertNotEquals(mine, theirs);
        assertFalse(Arrays.equals(Fixtures.answer(MODEL, mine), Fixtures.answer(other, theirs)));
        // The other revision's hidden state in this model's decoder is a different answer too.
        assertFalse(Arrays.equals(Fixtures.answer(MODEL, mine), Fixtures.answer(MODEL, theirs)));
    }

    /** Exports the cache in 16-token blocks, lets {@code edit} change them, loads them into a fresh cache and decodes. */
    private static int[] decodeFromBlocks(KvCache prefilled, int first, java.util.function.Consumer<List<float[]>> edit) {
        List<float[]> blocks = new java.util.ArrayList<>();
        for (int from = 0; from < prefilled.length(); from += 16) {
            blocks.add(prefilled.export(from, Math.min(prefilled.length(), from + 16)));
        }
        edit.accept(blocks);
        KvCache loaded = MODEL.newCache();
        for (float[] block : blocks) {
            loaded.append(block, 0, block.length / loaded.floatsPerToken());
        }
        assertEquals(prefilled.length(), loaded.length());
        return Fixtures.continueDecoding(MODEL, loaded, first, Fixtures.ANSWER_TOKENS);
    }
}
