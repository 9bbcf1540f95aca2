package org.mooncake.osgi.epd.proxy.impl;

import java.lang.System.Logger.Level;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Liveness probing: {@code GET {url}/health} on every registered instance at once, each bounded
 * by the probe timeout; 2xx is a success, anything else (status, refusal, timeout) a failure.
 * {@link #probeOnce} runs one round and returns when it is recorded; the component's scheduler
 * calls it every interval on its single probe thread, tests call it directly.
 */
final class Prober {
    private static final System.Logger LOG = System.getLogger(Prober.class.getName());

    private final InstanceRegistry registry;
    private final WorkerClient client;
    private final Clock clock;

    Prober(InstanceRegistry registry, WorkerClient client, Clock clock) {
        this.registry = registry;
        this.client = client;
        this.clock = clock;
    }

    /** Probes every instance once, concurrently, and records the results. */
    void probeOnce(Duration timeout, int failThreshold) {
        List<Instance> targets = registry.snapshot().all();
        List<CompletableFuture<Void>> rounds = new ArrayList<>(targets.size());
        for (Instance i : targets) {
            CompletableFuture<HttpResponse<byte[]>> f;
            try {
                f = WorkerClient.within(client.get(i.url(), "/health", timeout), timeout);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            rounds.add(f.handle((response, error) -> {
                String failure = null;
                if (error != null) {
                    failure = UpstreamFailure.classify(error, i.role(), i).getMessage();
                } else if (response.statusCode() / 100 != 2) {
                    failure = "HTTP " + response.statusCode() + ": " + UpstreamFailure.messageOf(response.body());
                }
                record(i, failure, failThreshold);
                return null;
            }));
        }
        CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new)).join();
    }

    private void record(Instance probed, String failure, int failThreshold) {
        registry.recordProbe(probed, failure == null, failure, clock.instant(), failThreshold);
        Instance now = registry.snapshot().all().stream().filter(i -> i.id().equals(probed.id())).findFirst()
                .orElse(null);
        if (now != null && now.healthy() != probed.healthy()) {
            LOG.log(now.healthy() ? Level.INFO : Level.WARNING, "{0} instance {1} ({2}) is now {3}{4}",
                    now.role().wire, now.id(), now.url(), now.healthy() ? "healthy" : "unhealthy",
                    failure == null ? "" : " after " + now.consecutiveFailures() + " failed probes: " + failure);
        }
    }
}
