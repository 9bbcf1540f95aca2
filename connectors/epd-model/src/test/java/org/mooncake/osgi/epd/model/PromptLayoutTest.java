package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class PromptLayoutTest {
    private static final Model MODEL = Fixtures.MODEL;

    @Test
    void textIsUtf8BytesAfterBos() {
        int[] ids = MODEL.tokenIds(List.of(new PromptPart.Text("hé!")));
        assertArrayEquals(new int[] {Tokens.BOS, 'h', 0xc3, 0xa9, '!'}, ids);
    }

    @Test
    void mediaTakesPlaceholdersBetweenMarkers() {
        List<PromptPart> prompt = List.of(new PromptPart.Text("a"), PromptPart.MediaItem.layout("x", 3), new PromptPart.Text("b"));
        assertArrayEquals(new int[] {Tokens.BOS, 'a', Tokens.MEDIA_START, Tokens.MEDIA_PAD, Tokens.MEDIA_PAD,
                Tokens.MEDIA_PAD, Tokens.MEDIA_END, 'b'}, MODEL.tokenIds(prompt));
    }

    @Test
    void chatWrapsTheUserTurn() {
        List<PromptPart> chat = Prompts.chat(List.of(new PromptPart.Text("hi")));
        assertEquals(List.of(new PromptPart.Text("<|user|>\n"), new PromptPart.Text("hi"),
                new PromptPart.Text("\n<|assistant|>\n")), chat);
        HiddenState state = Fixtures.encode(MODEL, 1);
        List<PromptPart> full = Fixtures.prompt(state);
        assertArrayEquals(MODEL.tokenIds(full), MODEL.tokenIds(Prompts.layoutOnly(full)));
    }

    @Test
    void mediaItemsValidateTheirRows() {
        HiddenState state = Fixtures.encode(MODEL, 1);
        assertThrows(IllegalArgumentException.class, () -> new PromptPart.MediaItem("x", state.tokens() + 1, state));
        assertThrows(IllegalArgumentException.class, () -> new PromptPart.MediaItem("", 3, null));
        assertThrows(IllegalArgumentException.class, () -> new PromptPart.MediaItem("x", 0, null));
    }

    @Test
    void prefillNeedsTheHiddenStatesOfTheTokensItComputes() {
        List<PromptPart> layoutOnly = Prompts.layoutOnly(Fixtures.prompt(Fixtures.encode(MODEL, 1)));
        KvCache cache = MODEL.newCache();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MODEL.prefill(layoutOnly, cache));
        assertTrue(e.getMessage().contains("image-1"), e.getMessage());
        assertEquals(0, cache.length(), "a rejected prefill leaves the cache untouched");
        HiddenState narrow = new HiddenState(16, 8, new float[16 * 8]);
        assertThrows(IllegalArgumentException.class, () -> MODEL.prefill(Fixtures.prompt(narrow), MODEL.newCache()));
    }

    @Test
    void contextIsCappedAtMaxContext() {
        String tooLong = "x".repeat(Fixtures.TINY.maxContext());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MODEL.prefill(List.of(new PromptPart.Text(tooLong)), MODEL.newCache()));
        assertTrue(e.getMessage().contains("maxContext"), e.getMessage());

        KvCache cache = MODEL.newCache();
        int token = MODEL.prefill(List.of(new PromptPart.Text("x".repeat(Fixtures.TINY.maxContext() - 2))), cache);
        token = MODEL.decodeStep(cache, token);
        assertEquals(Fixtures.TINY.maxContext(), cache.length());
        int last = token;
        e = assertThrows(IllegalArgumentException.class, () -> MODEL.decodeStep(cache, last));
        assertTrue(e.getMessage().contains("maxContext"), e.getMessage());
        assertEquals(Fixtures.TINY.maxContext(), cache.length());
    }

    @Test
    void prefillNeedsAnEmptyCacheAndDecodeAValidToken() {
        KvCache cache = MODEL.newCache();
        MODEL.prefill(List.of(new PromptPart.Text("a")), cache);
        assertThrows(IllegalArgumentException.class, () -> MODEL.prefill(List.of(new PromptPart.Text("a")), cache));
        assertThrows(IllegalArgumentException.class, () -> MODEL.decodeStep(cache, Tokens.MEDIA_PAD));
        assertThrows(IllegalArgumentException.class, () -> MODEL.decodeStep(cache, Tokens.VOCAB));
        KvCache otherShape = Model.create(ModelConfig.demo(), 1).newCache();
        assertThrows(IllegalArgumentException.class, () -> MODEL.prefill(List.of(new PromptPart.Text("a")), otherShape));
    }

    @Test
    void generatedTokensArePrintableOrEnd() {
        for (int kind = 0; kind < 5; kind++) {
            int[] answer = Fixtures.answer(MODEL, Fixtures.encode(MODEL, kind));
            assertTrue(answer.length >= 1 && answer.length <= Fixtures.ANSWER_TOKENS);
            for (int i = 0; i < answer.length; i++) {
                assertTrue(Tokens.generatable(answer[i]), "id " + answer[i]);
                assertTrue(answer[i] != Tokens.END || i == answer.length - 1, "END only last");
            }
            assertTrue(answer.length == Fixtures.ANSWER_TOKENS || MODEL.isEnd(answer[answer.length - 1]));
        }
    }

    @Test
    void detokenizeKeepsPrintableAsciiUpToEnd() {
        assertEquals("Hi !", MODEL.detokenize(new int[] {'H', Tokens.BOS, 'i', 10, ' ', '!', Tokens.END, 'x'}));
        assertEquals("", MODEL.detokenize(new int[0]));
    }
}
