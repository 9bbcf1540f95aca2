package org.mooncake.osgi.epd.demo;

import java.util.List;

/**
 * What a chat completion came back as. {@code status} is the HTTP status (0 when no answer came:
 * connection refused, timeout); {@code error} the OpenAI error message of a failed request or of
 * an error event inside a stream; {@code chunks} the content deltas of a stream in order (empty
 * for a plain answer); {@code done} whether a stream ended with {@code [DONE]}; times in
 * nanoseconds from sending, the first byte of content ({@code -1} if none) and the end.
 */
public record ChatAnswer(int status, String content, String finishReason, String error, List<String> chunks,
        boolean done, long firstContentNanos, long totalNanos) {

    public ChatAnswer {
        chunks = List.copyOf(chunks);
    }

    public static ChatAnswer failed(int status, String error, long totalNanos) {
        return new ChatAnswer(status, "", null, error, List.of(), false, -1, totalNanos);
    }

    /** A 2xx answer without an error event. */
    public boolean ok() {
        return status / 100 == 2 && error == null;
    }

    /** Equal content and finish reason: with a byte vocabulary, the same tokens. */
    public boolean sameAs(ChatAnswer other) {
        return ok() && other.ok() && content.equals(other.content)
                && java.util.Objects.equals(finishReason, other.finishReason);
    }

    public double totalMillis() {
        return totalNanos / 1e6;
    }

    /** Time to the first content, or to the whole answer when it did not stream. */
    public double firstContentMillis() {
        return (firstContentNanos >= 0 ? firstContentNanos : totalNanos) / 1e6;
    }

    /** One line for a report: the failure, or the first characters of the answer. */
    public String summary() {
        if (!ok()) {
            return "HTTP " + status + (error == null ? "" : ": " + error);
        }
        String c = content.length() > 40 ? content.substring(0, 40) + "..." : content;
        return "\"" + c + "\" (" + finishReason + ")";
    }
}
