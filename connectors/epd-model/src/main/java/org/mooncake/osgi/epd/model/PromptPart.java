package org.mooncake.osgi.epd.model;

/** One part of a prompt, in order. */
public sealed interface PromptPart {

    /** Text, tokenized as its UTF-8 bytes. */
    record Text(String text) implements PromptPart {
        public Text {
            if (text == null) {
                throw new IllegalArgumentException("text is required");
            }
        }
    }

    /**
     * A media item: its {@code tokens} placeholder positions take the rows of {@code state}.
     * {@code state} may be null where only the token layout is needed (decode, or positions a
     * prefill finds already in its cache).
     */
    record MediaItem(String itemId, int tokens, HiddenState state) implements PromptPart {
        public MediaItem {
            if (itemId == null || itemId.isEmpty()) {
                throw new IllegalArgumentException("media itemId is required");
            }
            if (tokens <= 0) {
                throw new IllegalArgumentException("media item " + itemId + " needs tokens > 0: " + tokens);
            }
            if (state != null && state.tokens() != tokens) {
                throw new IllegalArgumentException("media item " + itemId + " has " + tokens
                        + " tokens but its state has " + state.tokens() + " rows");
            }
        }

        /** An item whose placeholders take all rows of {@code state}. */
        public static MediaItem of(String itemId, HiddenState state) {
            return new MediaItem(itemId, state.tokens(), state);
        }

        /** An item known only by its layout (no hidden state). */
        public static MediaItem layout(String itemId, int tokens) {
            return new MediaItem(itemId, tokens, null);
        }

        /** The same item without its hidden state. */
        public MediaItem withoutState() {
            return new MediaItem(itemId, tokens, null);
        }
    }
}
