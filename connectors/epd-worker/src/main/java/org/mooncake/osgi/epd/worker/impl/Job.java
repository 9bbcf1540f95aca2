package org.mooncake.osgi.epd.worker.impl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.epd.model.HiddenState;
import org.mooncake.osgi.epd.model.KvCache;
import org.mooncake.osgi.epd.model.Media;

/**
 * A request the engine works on. Built on the HTTP thread (which has fetched and decoded its
 * media already); from submission on, every mutable field is the engine thread's alone.
 */
abstract sealed class Job permits Job.Encode, Job.Prefill, Job.Generate {
    final String requestId;
    final ServedModel model;
    final ChatRequest request;
    /** Decoded media by item id (none on a decode worker, which needs only the layout). */
    final Map<String, Media> media;
    /** What the store had for each media item, once the scheduler role knew. */
    final Map<String, LookupOutcome> found = new LinkedHashMap<>();
    /** Hidden states at hand, loaded or encoded here, by item id. */
    final Map<String, HiddenState> states = new LinkedHashMap<>();

    Job(String requestId, ServedModel model, ChatRequest request, Map<String, Media> media) {
        this.requestId = requestId;
        this.model = model;
        this.request = request;
        this.media = media;
    }

    /** Items that need a look-up: every media item for encode and prefill jobs, none for generation. */
    List<String> itemsToResolve() {
        return List.copyOf(media.keySet());
    }

    abstract void fail(ApiError e);

    /** Encoder role: each item's hidden state in the store. */
    static final class Encode extends Job {
        final CompletableFuture<EncodeResult> result = new CompletableFuture<>();

        Encode(String requestId, ServedModel model, ChatRequest request, Map<String, Media> media) {
            super(requestId, model, request, media);
        }

        @Override
        void fail(ApiError e) {
            result.completeExceptionally(e);
        }
    }

    /** What an encode did per item: stored already (a hit), or encoded and saved (or not). */
    record EncodeResult(List<Item> items) {
        record Item(String id, String key, long bytes, boolean alreadyStored, boolean saved) {
        }
    }

    /** Prefill role: the first token, the prompt's KV in the store. */
    static final class Prefill extends Job {
        final CompletableFuture<PrefillResult> result = new CompletableFuture<>();

        Prefill(String requestId, ServedModel model, ChatRequest request, Map<String, Media> media) {
            super(requestId, model, request, media);
        }

        @Override
        void fail(ApiError e) {
            result.completeExceptionally(e);
        }
    }

    /** What a prefill hands on to the decode: the first token and the layout it saved KV for. */
    record PrefillResult(int firstToken, int promptTokens, Map<String, Integer> mediaTokens, int kvBlocks,
            int blockTokens, boolean kvComplete, Map<String, Object> connectorParams) {
    }

    /** Decode or aggregated: tokens out, one per engine step. */
    static final class Generate extends Job {
        final TokenStream out;
        /** A decode worker's hand-off from the prefill; null for aggregated. */
        final Handoff handoff;
        KvCache cache;
        int promptTokens;
        int generated;
        int last;

        Generate(String requestId, ServedModel model, ChatRequest request, Map<String, Media> media, Handoff handoff,
                TokenStream out) {
            super(requestId, model, request, media);
            this.handoff = handoff;
            this.out = out;
        }

        @Override
        List<String> itemsToResolve() {
            return List.of(); // aggregated encodes everything itself; decode loads KV, not hidden states
        }

        @Override
        void fail(ApiError e) {
            out.fail(e);
        }
    }
}
