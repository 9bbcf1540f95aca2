package org.mooncake.osgi.epd.worker.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.EncoderCacheWorker;
import org.mooncake.osgi.epd.api.KvCacheConnector;
import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.model.HiddenState;
import org.mooncake.osgi.epd.model.KvCache;
import org.mooncake.osgi.epd.model.Media;
import org.mooncake.osgi.epd.model.Model;
import org.mooncake.osgi.epd.model.PromptPart;
import org.mooncake.osgi.epd.model.Tokens;

/**
 * The model passes of each kind of request, on the engine thread: encode and save, prefill and
 * save the KV, load the KV (or compute it) and generate. Each counts what it computed, so that
 * a disaggregated run shows the work it did not do.
 */
final class Compute {
    private static final System.Logger LOG = System.getLogger(Compute.class.getName());
    private final Connectors connectors;
    private final WorkerMetrics metrics;
    private final MediaFetcher fetcher;
    private final ExecutorService completions;

    Compute(Connectors connectors, WorkerMetrics metrics, MediaFetcher fetcher, ExecutorService completions) {
        this.connectors = connectors;
        this.metrics = metrics;
        this.fetcher = fetcher;
        this.completions = completions;
    }

    /** Runs a ready request; returns it when it became a generation that {@link #advance} goes on with. */
    Job.Generate run(Job job) {
        return switch (job) {
            case Job.Encode e -> {
                encode(e);
                yield null;
            }
            case Job.Prefill p -> {
                prefill(p);
                yield null;
            }
            case Job.Generate g -> start(g);
        };
    }

    private HiddenState encode(Job j, String item) {
        Media media = j.media.get(item);
        if (media == null) { // a decode recomputing: it had only the layout
            media = fetcher.fetch(j.request.media().stream().filter(m -> m.id().equals(item)).findFirst()
                    .orElseThrow(), j.model.config());
        }
        HiddenState s = j.model.model().encode(media);
        metrics.encoded(j.model.id());
        j.states.put(item, s);
        return s;
    }

    /** Encoder role: every item the store lacks is encoded and saved; the answer waits for the saves. */
    private void encode(Job.Encode job) {
        EncoderCacheConnector ec = require(connectors.hiddenStates(), "hidden-state");
        EncoderCacheWorker worker = ec.worker(job.model.hidden());
        List<Job.EncodeResult.Item> items = new ArrayList<>();
        for (var e : job.found.entrySet()) {
            String key = job.model.hidden().hiddenState(e.getKey());
            long bytes = Engine.spec(job.model, job.media.get(e.getKey())).objectBytes();
            if (e.getValue() == LookupOutcome.HIT) {
                items.add(new Job.EncodeResult.Item(e.getKey(), key, bytes, true, false));
                continue;
            }
            long start = System.nanoTime();
            HiddenState s = encode(job, e.getKey());
            double costMs = (System.nanoTime() - start) / 1e6;
            worker.saveCaches(Map.of(e.getKey(), Tensor.ofFloats(s.data(), s.tokens(), s.width())), e.getKey(),
                    new EncoderCacheWorker.SaveHints(job.requestId, null, costMs));
            items.add(new Job.EncodeResult.Item(e.getKey(), key, bytes, false, false));
        }
        // the prefill must find the items once the answer is out: wait for the saves, off this thread
        completions.execute(() -> {
            try {
                worker.awaitSaves();
                Object saved = ec.scheduler(job.model.hidden()).requestFinished(job.requestId).transferParams()
                        .getOrDefault("ec_saved_items", List.of());
                List<?> done = saved instanceof List<?> l ? l : List.of();
                job.result.complete(new Job.EncodeResult(items.stream().map(i -> i.alreadyStored() ? i
                        : new Job.EncodeResult.Item(i.id(), i.key(), i.bytes(), false, done.contains(i.id()))).toList()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                job.fail(ApiError.server(503, "shutting_down", "interrupted while saving"));
            }
        });
    }

    /** The prompt with each media item's hidden state (encoding here what was not loaded). */
    private List<PromptPart> prompt(Job j, boolean withStates) {
        List<PromptPart> out = new ArrayList<>();
        for (ChatRequest.Part p : j.request.parts()) {
            switch (p) {
                case ChatRequest.Text t -> out.add(new PromptPart.Text(t.text()));
                case ChatRequest.Media m -> {
                    if (!withStates) {
                        Integer tokens = ((Job.Generate) j).handoff.mediaTokens().get(m.id());
                        if (tokens == null) {
                            throw ApiError.badRequest("invalid_value", "kv_transfer_params",
                                    "the prefill's hand-off does not name media item " + m.id());
                        }
                        out.add(PromptPart.MediaItem.layout(m.id(), tokens));
                    } else {
                        HiddenState s = j.states.containsKey(m.id()) ? j.states.get(m.id()) : encode(j, m.id());
                        out.add(PromptPart.MediaItem.of(m.id(), s));
                    }
                }
            }
        }
        return out;
    }

    /** Prefill role: the prompt's KV computed and saved, the first token answered with the hand-off. */
    private void prefill(Job.Prefill job) {
        KvCacheConnector kv = require(connectors.kv(), "KV");
        for (var e : job.found.entrySet()) {
            if (e.getValue() == LookupOutcome.HIT && !job.states.containsKey(e.getKey())) {
                metrics.recomputed("hidden_state", 1); // found, but its load failed: encoded here
            }
        }
        Model model = job.model.model();
        List<PromptPart> prompt = prompt(job, true);
        KvCache cache = model.newCache();
        int first = model.prefill(prompt, cache);
        metrics.prefilled(job.model.id(), cache.length());
        KvLayout layout = KvLayout.of(model, prompt, kv.blockTokens());
        KvCacheConnector.SaveResult saved = kv.save(job.model.kv(), job.requestId, layout.hashes(),
                i -> layout.block(model, cache, i), null);
        Map<String, Integer> mediaTokens = new LinkedHashMap<>();
        prompt.forEach(p -> {
            if (p instanceof PromptPart.MediaItem m) {
                mediaTokens.put(m.itemId(), m.tokens());
            }
        });
        job.result.complete(new Job.PrefillResult(first, cache.length(), mediaTokens, layout.blocks(),
                layout.blockTokens(), saved.complete(), saved.transferParams()));
    }

    /** Decode or aggregated: the prompt's KV at hand (loaded, or computed here), then the first token. */
    private Job.Generate start(Job.Generate job) {
        Model model = job.model.model();
        if (job.handoff == null) { // aggregated: everything here
            List<PromptPart> prompt = prompt(job, true);
            job.cache = model.newCache();
            job.last = model.prefill(prompt, job.cache);
            metrics.prefilled(job.model.id(), job.cache.length());
        } else {
            loadKv(job);
            job.last = job.handoff.firstToken();
        }
        job.promptTokens = job.cache.length();
        return emit(job) ? null : job;
    }

    private void loadKv(Job.Generate job) {
        KvCacheConnector kv = require(connectors.kv(), "KV");
        Model model = job.model.model();
        List<PromptPart> layoutOnly = prompt(job, false);
        KvLayout layout = KvLayout.of(model, layoutOnly, job.handoff.blockTokens());
        if (layout.tokens().length != job.handoff.promptTokens()) {
            throw ApiError.badRequest("invalid_value", "kv_transfer_params", "this request's prompt has "
                    + layout.tokens().length + " tokens, the prefill's had " + job.handoff.promptTokens());
        }
        List<Tensor> blocks = layout.targets(model);
        KvCacheConnector.LoadResult loaded = kv.load(job.model.kv(), job.requestId, layout.hashes(), blocks::get);
        job.cache = model.newCache();
        KvLayout.append(job.cache, blocks, loaded.loaded(), layout);
        metrics.kvLoaded(job.model.id(), job.cache.length());
        if (loaded.complete()) {
            return;
        }
        if (!kv.recomputesOnFailure()) {
            throw ApiError.server(502, "kv_unavailable", "KV of the prompt could not be loaded: " + loaded.error());
        }
        int from = job.cache.length();
        LOG.log(Level.WARNING, "request {0}: KV loaded for {1} of {2} tokens ({3}); computing the rest here",
                job.requestId, from, layout.tokens().length, loaded.error());
        List<PromptPart> full = prompt(job, true);
        model.prefillFrom(full, job.cache);
        metrics.prefilled(job.model.id(), job.cache.length() - from);
        metrics.recomputed("kv_tokens", job.cache.length() - from);
    }

    /**
     * One decode step of a running generation; true when it is over (finished, failed or
     * abandoned by its reader).
     */
    boolean advance(Job.Generate job) {
        if (job.out.cancelled()) {
            LOG.log(Level.INFO, "request {0}: the client went away after {1} tokens; stopped", job.requestId,
                    job.generated);
            return true;
        }
        try {
            job.last = job.model.model().decodeStep(job.cache, job.last);
            metrics.decoded(job.model.id());
            return emit(job);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "request " + job.requestId + " failed while decoding", e);
            job.fail(ApiError.server(500, "worker_error", e.toString()));
            return true;
        }
    }

    /** Hands out the last token; true when the generation ended with it. */
    private static boolean emit(Job.Generate job) {
        job.out.token(job.last);
        job.generated++;
        Model model = job.model.model();
        if (job.last == Tokens.END) {
            job.out.end("stop", job.promptTokens);
            return true;
        }
        if (job.generated >= job.request.maxTokens() || job.cache.length() >= model.config().maxContext()) {
            job.out.end("length", job.promptTokens);
            return true;
        }
        return false;
    }

    private static <T> T require(T connector, String which) {
        if (connector == null) {
            throw ApiError.server(503, "connector_missing", "the " + which + " connector is not running in this worker");
        }
        return connector;
    }
}
