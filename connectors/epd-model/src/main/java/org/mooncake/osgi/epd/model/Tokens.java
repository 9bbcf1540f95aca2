package org.mooncake.osgi.epd.model;

/**
 * The decoder's vocabulary: ids 0-255 are the UTF-8 bytes of text, then a few special ids.
 * A media item occupies {@code MEDIA_START, MEDIA_PAD x tokens, MEDIA_END}.
 */
public final class Tokens {
    /** Begin of sequence, the first token of every prompt. */
    public static final int BOS = 256;
    /** Opens a media item. */
    public static final int MEDIA_START = 257;
    /** Closes a media item. */
    public static final int MEDIA_END = 258;
    /** A media placeholder: its position takes a hidden-state row instead of an embedding. */
    public static final int MEDIA_PAD = 259;
    /** End of text: generation stops here. */
    public static final int END = 260;
    /** Number of ids. */
    public static final int VOCAB = 261;
    /** Lowest and highest byte the decoder may generate (printable ASCII). */
    public static final int FIRST_PRINTABLE = 32;
    public static final int LAST_PRINTABLE = 126;

    private Tokens() {
    }

    /** Whether the decoder may generate {@code id}: printable ASCII or {@link #END}. */
    public static boolean generatable(int id) {
        return (id >= FIRST_PRINTABLE && id <= LAST_PRINTABLE) || id == END;
    }
}
