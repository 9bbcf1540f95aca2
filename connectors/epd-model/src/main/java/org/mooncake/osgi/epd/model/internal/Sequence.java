package org.mooncake.osgi.epd.model.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.mooncake.osgi.epd.model.HiddenState;
import org.mooncake.osgi.epd.model.PromptPart;
import org.mooncake.osgi.epd.model.Tokens;

/**
 * A prompt laid out as tokens: BOS, then text as UTF-8 bytes and each media item as
 * {@code MEDIA_START, MEDIA_PAD x tokens, MEDIA_END}; remembers which hidden-state row fills each
 * placeholder.
 */
public final class Sequence {
    private final int[] ids;
    private final HiddenState[] states;
    private final String[] items;
    private final int[] rows;

    private Sequence(int[] ids, HiddenState[] states, String[] items, int[] rows) {
        this.ids = ids;
        this.states = states;
        this.items = items;
        this.rows = rows;
    }

    public static Sequence of(List<? extends PromptPart> prompt) {
        int[] ids = new int[16];
        HiddenState[] states = new HiddenState[16];
        String[] items = new String[16];
        int[] rows = new int[16];
        int n = 0;
        ids[n++] = Tokens.BOS;
        for (PromptPart part : prompt) {
            int need = switch (part) {
                case PromptPart.Text t -> t.text().getBytes(StandardCharsets.UTF_8).length;
                case PromptPart.MediaItem m -> m.tokens() + 2;
            };
            if (n + need > ids.length) {
                int grown = Math.max(ids.length * 2, n + need);
                ids = Arrays.copyOf(ids, grown);
                states = Arrays.copyOf(states, grown);
                items = Arrays.copyOf(items, grown);
                rows = Arrays.copyOf(rows, grown);
            }
            switch (part) {
                case PromptPart.Text t -> {
                    for (byte b : t.text().getBytes(StandardCharsets.UTF_8)) {
                        ids[n++] = b & 0xff;
                    }
                }
                case PromptPart.MediaItem m -> {
                    ids[n++] = Tokens.MEDIA_START;
                    for (int r = 0; r < m.tokens(); r++) {
                        states[n] = m.state();
                        items[n] = m.itemId();
                        rows[n] = r;
                        ids[n++] = Tokens.MEDIA_PAD;
                    }
                    ids[n++] = Tokens.MEDIA_END;
                }
            }
        }
        return new Sequence(Arrays.copyOf(ids, n), states, items, rows);
    }

    public int length() {
        return ids.length;
    }

    public int[] ids() {
        return ids.clone();
    }

    /** Checks that every placeholder in {@code [from, to)} has a hidden-state row of {@code width}. */
    public void requireStates(int from, int to, int width) {
        for (int pos = from; pos < to; pos++) {
            if (ids[pos] != Tokens.MEDIA_PAD) {
                continue;
            }
            HiddenState state = states[pos];
            if (state == null) {
                throw new IllegalArgumentException("media item " + items[pos] + " has no hidden state but position "
                        + pos + " must be computed");
            }
            if (state.width() != width) {
                throw new IllegalArgumentException("media item " + items[pos] + " has width " + state.width()
                        + ", the model's width is " + width);
            }
        }
    }

    /** Writes the decoder input of position {@code pos}: a hidden-state row or a token embedding. */
    public void input(int pos, Decoder decoder, float[] row) {
        if (ids[pos] == Tokens.MEDIA_PAD) {
            HiddenState state = states[pos];
            System.arraycopy(state.data(), rows[pos] * state.width(), row, 0, state.width());
        } else {
            decoder.embed(ids[pos], row);
        }
    }
}
