package org.mooncake.osgi.epd.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The chat convention the reference workers share, so encoder, prefill and decode build the same
 * token layout from one request: {@code BOS "<|user|>\n" content... "\n<|assistant|>\n"}.
 * ({@link Model#tokenIds} adds the BOS.)
 */
public final class Prompts {
    public static final String USER = "<|user|>\n";
    public static final String ASSISTANT = "\n<|assistant|>\n";

    private Prompts() {
    }

    /** Wraps one user turn's content (text and media, in order) in the chat markers. */
    public static List<PromptPart> chat(List<? extends PromptPart> userContent) {
        List<PromptPart> parts = new ArrayList<>(userContent.size() + 2);
        parts.add(new PromptPart.Text(USER));
        parts.addAll(userContent);
        parts.add(new PromptPart.Text(ASSISTANT));
        return List.copyOf(parts);
    }

    /** The same prompt with every media item's hidden state dropped (its layout kept). */
    public static List<PromptPart> layoutOnly(List<? extends PromptPart> prompt) {
        List<PromptPart> parts = new ArrayList<>(prompt.size());
        for (PromptPart part : prompt) {
            parts.add(part instanceof PromptPart.MediaItem item ? item.withoutState() : part);
        }
        return List.copyOf(parts);
    }
}
