package org.mooncake.osgi.epd.worker.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

import org.mooncake.osgi.epd.api.EcLoadException;
import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.EncoderCacheScheduler;
import org.mooncake.osgi.epd.api.EncoderCacheWorker;
import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorSpec;
import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.model.HiddenState;
import org.mooncake.osgi.epd.model.Media;

/**
 * The worker's engine: one platform thread runs every model pass and drives the connectors'
 * roles, a step at a time, as an inference engine's scheduler loop does. A step takes the new
 * requests, asks the hidden-state scheduler role about their media items (a request with an item
 * still pending is deferred to a later step), loads the hits of all ready requests in one batch
 * per model, computes what each ready request needs (encode, prefill, or the start of a
 * generation), and advances every running generation by one token. The HTTP threads only submit
 * jobs and wait on their futures and token streams; so the model and the roles' per-step state
 * are confined to this thread, and compute never runs two passes at once on the machine's cores.
 */
final class Engine {
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());
    /** How long an idle engine with deferred requests waits for a look-up answer before its next step. */
    private static final long DEFER_WAIT_MS = 20;

    private final WorkerRole role;
    private final Connectors connectors;
    private final WorkerMetrics metrics;
    private final Compute compute;
    private final BlockingQueue<Job> incoming = new LinkedBlockingQueue<>();
    private final ExecutorService completions = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread thread;
    private volatile boolean closed;
    /** Engine thread only: requests waiting for look-ups, and generations under way. */
    private final List<Job> resolving = new ArrayList<>();
    private final List<Job.Generate> running = new ArrayList<>();

    Engine(WorkerRole role, Connectors connectors, WorkerMetrics metrics, MediaFetcher fetcher) {
        this.role = role;
        this.connectors = connectors;
        this.metrics = metrics;
        this.compute = new Compute(connectors, metrics, fetcher, completions);
        this.thread = Thread.ofPlatform().name("epd-engine-" + role.label()).daemon().start(this::loop);
    }

    void submit(Job job) {
        if (closed) {
            job.fail(ApiError.server(503, "shutting_down", "the worker is stopping"));
            return;
        }
        incoming.add(job);
    }

    private void loop() {
        while (!closed) {
            try {
                List<Job> fresh = new ArrayList<>();
                Job first = resolving.isEmpty() && running.isEmpty() ? incoming.take() : incoming.poll();
                if (first != null) {
                    fresh.add(first);
                    incoming.drainTo(fresh);
                }
                step(fresh);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) { // a bug: fail what is under way rather than hang it
                LOG.log(Level.ERROR, "engine step failed", e);
                ApiError error = ApiError.server(500, "engine_error", e.toString());
                resolving.forEach(j -> j.fail(error));
                running.forEach(j -> j.fail(error));
                resolving.clear();
                running.clear();
            }
        }
        ApiError stopping = ApiError.server(503, "shutting_down", "the worker is stopping");
        resolving.forEach(j -> j.fail(stopping));
        running.forEach(j -> j.fail(stopping));
        incoming.forEach(j -> j.fail(stopping));
    }

    private void step(List<Job> fresh) throws InterruptedException {
        resolving.addAll(fresh);
        List<Job> ready = resolve();
        load(ready);
        for (Job j : ready) {
            try {
                Job.Generate started = compute.run(j);
                if (started != null) {
                    running.add(started);
                }
            } catch (ApiError e) {
                j.fail(e);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "request " + j.requestId + " failed", e);
                j.fail(ApiError.server(500, "worker_error", e.toString()));
            }
        }
        running.removeIf(compute::advance);
        if (ready.isEmpty() && running.isEmpty() && !resolving.isEmpty()) {
            awaitAnAnswer();
        }
    }

    /** The look-ups of the requests waiting; returns those whose every item has an answer. */
    private List<Job> resolve() {
        List<Job> ready = new ArrayList<>();
        EncoderCacheConnector ec = connectors.hiddenStates();
        for (Job j : new ArrayList<>(resolving)) {
            boolean pending = false;
            for (String item : j.itemsToResolve()) {
                if (j.found.containsKey(item)) {
                    continue;
                }
                LookupOutcome o = ec == null ? LookupOutcome.MISS : ec.scheduler(j.model.hidden()).lookup(item);
                if (o == LookupOutcome.PENDING) {
                    pending = true;
                } else {
                    j.found.put(item, o);
                }
            }
            if (!pending) {
                resolving.remove(j);
                ready.add(j);
            }
        }
        return ready;
    }

    /** Deferred requests only: wait for the first pending item's answer (or a short while), and keep it. */
    private void awaitAnAnswer() throws InterruptedException {
        EncoderCacheConnector ec = connectors.hiddenStates();
        for (Job j : resolving) {
            for (String item : j.itemsToResolve()) {
                if (!j.found.containsKey(item) && ec != null) {
                    LookupOutcome o = ec.scheduler(j.model.hidden()).awaitLookup(item, DEFER_WAIT_MS);
                    if (o != LookupOutcome.PENDING) {
                        j.found.put(item, o);
                    }
                    return;
                }
            }
        }
    }

    /**
     * Loads the hidden states the ready prefill requests found in the store: one step's metadata
     * and one batch per model. A load that fails leaves the item out: the request then encodes it
     * here (counted), or fails if the connector is set to report failed loads.
     */
    private void load(List<Job> ready) {
        EncoderCacheConnector ec = connectors.hiddenStates();
        if (ec == null || role != WorkerRole.PREFILL) {
            return;
        }
        Map<ServedModel, List<Job>> byModel = new LinkedHashMap<>();
        for (Job j : ready) {
            if (j.found.containsValue(LookupOutcome.HIT)) {
                byModel.computeIfAbsent(j.model, m -> new ArrayList<>()).add(j);
            }
        }
        byModel.forEach((model, jobs) -> {
            EncoderCacheScheduler scheduler = ec.scheduler(model.hidden());
            EncoderCacheWorker worker = ec.worker(model.hidden());
            for (Job j : jobs) {
                j.found.forEach((item, o) -> {
                    if (o == LookupOutcome.HIT) {
                        scheduler.updateStateAfterAlloc(j.requestId, item, spec(model, j.media.get(item)));
                    }
                });
            }
            Map<String, Tensor> cache = new HashMap<>();
            Map<String, String> failed = Map.of();
            worker.bindConnectorMetadata(scheduler.buildConnectorMeta());
            try {
                worker.startLoadCaches(cache);
            } catch (EcLoadException e) {
                failed = e.failed();
            } finally {
                worker.clearConnectorMetadata();
            }
            scheduler.updateConnectorOutput(worker.getFinished(Set.of()));
            for (Job j : jobs) {
                for (var e : j.found.entrySet()) {
                    Tensor t = e.getValue() == LookupOutcome.HIT ? cache.get(e.getKey()) : null;
                    if (t != null) {
                        float[] rows = (float[]) t.data().heapBase().orElseThrow();
                        j.states.put(e.getKey(), new HiddenState(rows.length / model.config().width(),
                                model.config().width(), rows));
                    } else if (failed.containsKey(e.getKey())) {
                        j.fail(ApiError.server(502, "hidden_state_unavailable",
                                "hidden state " + e.getKey() + " could not be loaded: " + failed.get(e.getKey())));
                    }
                }
            }
        });
        ready.removeIf(j -> j instanceof Job.Prefill p && p.result.isDone());
    }

    /** What the engine expects a media item's hidden state to be: f32 {@code [frames * tokens per image, width]}. */
    static TensorSpec spec(ServedModel model, Media media) {
        return new TensorSpec(DType.F32, new long[] {model.model().mediaTokens(media.frames()), model.config().width()});
    }

    public void close() throws InterruptedException {
        closed = true;
        thread.interrupt();
        thread.join(5_000);
        completions.shutdown();
    }
}
