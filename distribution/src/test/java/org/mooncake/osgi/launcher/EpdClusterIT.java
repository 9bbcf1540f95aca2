package org.mooncake.osgi.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.mooncake.osgi.epd.demo.ChatAnswer;
import org.mooncake.osgi.epd.demo.DemoHttp;
import org.mooncake.osgi.epd.demo.DemoMedia;
import org.mooncake.osgi.epd.demo.DemoModels;
import org.mooncake.osgi.epd.demo.EpdCluster;
import org.mooncake.osgi.epd.demo.Evidence;
import org.mooncake.osgi.epd.demo.Expectation;
import org.mooncake.osgi.epd.demo.Metrics;
import org.mooncake.osgi.epd.demo.ModelSize;
import org.mooncake.osgi.epd.demo.Prompt;
import org.mooncake.osgi.epd.demo.Role;
import org.mooncake.osgi.epd.demo.Supervisor;

/**
 * EPD on real processes, started with bin/mooncake as the demo starts them: a master, a storage
 * node, encoder, prefill and decode workers, the proxy, and an aggregated worker for the expected
 * answers, all serving the tiny model. One image is answered through the proxy exactly as by the
 * aggregated worker; the storage node dies between a hidden state's save and its load, and the
 * next request is still answered exactly (the default {@code load.failure=recompute}) and a new
 * storage node brings the store back; the decode worker is killed in the middle of a streamed
 * answer, and the client gets an error event and {@code [DONE]}, never a hang.
 *
 * <p>The methods share one cluster and run in order: each leaves it as the next expects.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EpdClusterIT {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home"));
    /**
     * A model of the demo's size for the streamed answer that is cut: the tiny model decodes a
     * whole answer in tens of milliseconds, before a kill could land in it. With these weights
     * (seed 7) the greedy answer to {@link #LONG_PROMPT} never produces the end token and runs to
     * max_tokens, seconds of streaming (most seeds end within a few hundred tokens; the test checks
     * it on the aggregated worker first). The prompt is text, so nothing of demo size is encoded.
     */
    private static final String LONG = "mooncake-vl@long";
    private static final String LONG_PROMPT = "Tell me everything, at length.";
    private static final Duration REQUEST_BOUND = Duration.ofSeconds(60);

    private final DemoHttp http = new DemoHttp(REQUEST_BOUND);
    private final Supervisor supervisor = new Supervisor(Duration.ofSeconds(15));
    private EpdCluster cluster;

    @BeforeAll
    void startCluster() throws Exception {
        supervisor.installShutdownHook();
        String models = DemoModels.modelsVar(ModelSize.TINY) + "," + LONG + "=demo:7";
        EpdCluster.Spec spec = new EpdCluster.Spec(HOME, HOME.resolve("../epd-cluster-logs"),
                "it" + Long.toHexString(System.nanoTime() & 0xFFFFF), models, EnumSet.allOf(Role.class), null,
                Duration.ofSeconds(120),
                // the master notices the dead storage node within seconds, so a new one takes over soon
                Map.of(Role.MASTER, Map.of("client.ttl.ms", "4000")));
        cluster = EpdCluster.start(spec, supervisor, http);
    }

    @AfterAll
    void stopCluster() {
        supervisor.close(); // every process, then their runtime folders
    }

    private static Prompt image(String text, int seed) {
        return new Prompt(DemoModels.R1, text, List.of(Prompt.Media.image(DemoMedia.pngDataUrl(seed, 64))), 16);
    }

    private double counter(Role role, String metric, String... labels) throws Exception {
        return http.metrics(cluster.url(role)).sum(metric, labels);
    }

    /** Asks through the proxy and of the aggregated worker; asserts both answered, equally, within the bound. */
    private ChatAnswer exactly(Prompt p) throws Exception {
        long start = System.nanoTime();
        ChatAnswer epd = http.chat(cluster.url(Role.PROXY), p);
        assertTrue(System.nanoTime() - start < REQUEST_BOUND.toNanos(), "answered within the bound");
        ChatAnswer aggregated = http.chat(cluster.url(Role.AGGREGATED), p);
        assertTrue(epd.ok(), "EPD: " + epd.summary());
        assertTrue(aggregated.ok(), "aggregated: " + aggregated.summary());
        assertEquals(aggregated.content(), epd.content(), "token for token");
        assertEquals(aggregated.finishReason(), epd.finishReason());
        return epd;
    }

    private void assertEvidence(Map<Role, Metrics> before, List<Expectation> evidence) throws Exception {
        Map<Role, Metrics> deltas = new java.util.EnumMap<>(Role.class);
        for (Role r : List.of(Role.ENCODER, Role.PREFILL, Role.DECODE)) {
            deltas.put(r, http.metrics(cluster.url(r)).minus(before.get(r)));
        }
        for (Expectation e : evidence) {
            Expectation.Outcome o = e.check(deltas);
            assertTrue(o.ok(), o.message());
        }
    }

    @Test
    @Order(1)
    void anImageThroughTheProxyIsAnsweredAsTheAggregatedWorkerAnswersIt() throws Exception {
        Map<Role, Metrics> before = cluster.scrape(http);
        exactly(image("What is in this picture?", 1));
        long bytes = ModelSize.TINY.hiddenBytes(1);
        // the encoder's save is asynchronous: its counter may trail the answer by a moment
        await("the encoder's save counted").atMost(Duration.ofSeconds(10)).until(() -> counter(Role.ENCODER,
                "mooncake_epd_hidden_state_transfers_total", "op", "put", "outcome", "ok") >= 1);
        assertEvidence(before, Evidence.disaggregated(1, 0, bytes, bytes));
    }

    @Test
    @Order(2)
    void aStorageNodeLostBetweenSaveAndLoadCostsARecomputeNeverAWrongAnswer() throws Exception {
        Prompt p = image("Which colours?", 2);
        // the save: the encoder alone, as the proxy's first stage would call it
        double saved = counter(Role.ENCODER, "mooncake_epd_hidden_state_transfers_total", "op", "put", "outcome", "ok");
        ChatAnswer encoded = http.chat(cluster.url(Role.ENCODER), p);
        assertTrue(encoded.ok(), encoded.summary());
        await("the hidden state saved").atMost(Duration.ofSeconds(10)).until(() -> counter(Role.ENCODER,
                "mooncake_epd_hidden_state_transfers_total", "op", "put", "outcome", "ok") > saved);

        cluster.process(Role.STORAGE).kill();
        double recomputed = counter(Role.PREFILL, "mooncake_epd_worker_recomputes_total", "kind", "hidden_state");
        double encodedAtPrefill = counter(Role.PREFILL, "mooncake_epd_worker_encoder_passes_total");
        // the load: the master may still list the object (a failed read) or have dropped it (a miss)
        exactly(new Prompt(p.model(), "Which colours do you see?", p.media(), p.maxTokens()));
        double computedHere = counter(Role.PREFILL, "mooncake_epd_worker_recomputes_total", "kind", "hidden_state")
                - recomputed + counter(Role.PREFILL, "mooncake_epd_worker_encoder_passes_total") - encodedAtPrefill;
        assertTrue(computedHere >= 1, "the prefill computed the lost hidden state itself: " + computedHere);

        // a new storage node: once the master has let the dead one go, the store is whole again
        await("the master drops the dead segment").atMost(Duration.ofSeconds(30))
                .until(() -> counter(Role.MASTER, "mooncake_segments") == 0);
        cluster.relaunch(Role.STORAGE, supervisor, http);
        await("the new segment mounted").atMost(Duration.ofSeconds(30))
                .until(() -> counter(Role.MASTER, "mooncake_segments") == 1);
        Map<Role, Metrics> before = cluster.scrape(http);
        exactly(image("And this one?", 3));
        long bytes = ModelSize.TINY.hiddenBytes(1);
        await("the encoder's save counted").atMost(Duration.ofSeconds(10)).until(() -> http.metrics(
                cluster.url(Role.ENCODER)).minus(before.get(Role.ENCODER)).sum(
                        "mooncake_epd_hidden_state_transfers_total", "op", "put", "outcome", "ok") >= 1);
        assertEvidence(before, Evidence.disaggregated(1, 0, bytes, bytes));
    }

    @Test
    @Order(3)
    void aDecodeKilledMidStreamEndsTheStreamWithAnErrorEventAndDone() throws Exception {
        Prompt p = new Prompt(LONG, LONG_PROMPT, List.of(), 3500);
        ChatAnswer whole = http.chat(cluster.url(Role.AGGREGATED), p);
        assertTrue(whole.ok(), whole.summary());
        assertEquals("length", whole.finishReason(), "the answer must run to max_tokens for the kill to land in it "
                + "(the model changed? pick weights whose answer does): " + whole.summary());

        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<ChatAnswer> streamed = CompletableFuture.supplyAsync(() -> {
            try {
                return http.stream(cluster.url(Role.PROXY), p, first::complete);
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        });
        first.get(REQUEST_BOUND.toSeconds(), TimeUnit.SECONDS);
        cluster.process(Role.DECODE).kill();
        long killed = System.nanoTime();
        ChatAnswer cut = streamed.get(30, TimeUnit.SECONDS); // never a hung client
        assertFalse(cut.ok(), "the stream cannot have ended well: " + cut.summary());
        assertTrue(cut.error() != null && cut.error().contains("upstream_error"), "an SSE error event: " + cut.error());
        assertTrue(cut.done(), "the error event is followed by [DONE]");
        assertTrue(!cut.chunks().isEmpty() && cut.content().length() < whole.content().length(),
                "cut in the middle: " + cut.content().length() + " of " + whole.content().length() + " characters");
        assertTrue(whole.content().startsWith(cut.content()), "what arrived was the exact answer so far");
        assertTrue(System.nanoTime() - killed < Duration.ofSeconds(30).toNanos());
    }
}
