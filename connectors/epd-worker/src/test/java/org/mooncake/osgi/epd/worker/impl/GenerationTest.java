package org.mooncake.osgi.epd.worker.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Generations that end early: a reader that goes away, a token budget, concurrent requests. */
class GenerationTest {
    private final Cluster c = new Cluster();

    @AfterEach
    void close() throws InterruptedException {
        c.close();
    }

    @Test
    void aReaderThatGoesAwayStopsItsGeneration() throws InterruptedException {
        var body = Cluster.request("vl@r1", "Tell a long story", 400).put("stream", true);
        Worker.Stream s = (Worker.Stream) c.aggregated.worker().chat(body.toString().getBytes(StandardCharsets.UTF_8),
                "gone");
        assertInstanceOf(TokenStream.Token.class, s.tokens().next(30_000));
        s.tokens().cancel(); // what a failed write does
        // the engine drops it at its next step: a request after it is answered, and the old one never ran out
        var q = Cluster.request("vl@r1", "short", 3);
        assertEquals(200, Cluster.call(c.aggregated, q, "next").get("status").asInt());
        assertTrue(c.aggregated.metrics().count("decode_tokens", "vl@r1") < 399 + 2);
        long settled = c.aggregated.metrics().count("decode_tokens", "vl@r1");
        assertEquals(200, Cluster.call(c.aggregated, q, "again").get("status").asInt());
        assertEquals(settled + 2, c.aggregated.metrics().count("decode_tokens", "vl@r1"),
                "only the new request decoded: the abandoned one is gone");
        TokenStream.Event e;
        while ((e = s.tokens().next(0)) instanceof TokenStream.Token) {
            // tokens decoded before the engine saw the cancel
        }
        assertNull(e, "an abandoned generation is not finished");
    }

    @Test
    void concurrentRequestsEachGetTheirOwnAnswer() throws Exception {
        var a = Cluster.request("vl@r1", "first question", 20);
        var b = Cluster.request("vl@r2", "second question", 20);
        String expectA = Cluster.answer(Cluster.call(c.aggregated, a, "a0"));
        String expectB = Cluster.answer(Cluster.call(c.aggregated, b, "b0"));
        var fa = java.util.concurrent.CompletableFuture.supplyAsync(() -> Cluster.answer(Cluster.call(c.aggregated, a, "a")));
        var fb = java.util.concurrent.CompletableFuture.supplyAsync(() -> Cluster.answer(Cluster.call(c.aggregated, b, "b")));
        assertEquals(expectA, fa.get());
        assertEquals(expectB, fb.get());
    }

    @Test
    void theTokenBudgetEndsTheAnswerWithLength() {
        var r = Cluster.call(c.aggregated, Cluster.request("vl@r1", "count", 5), "len");
        int completion = r.at("/usage/completion_tokens").asInt();
        String finish = r.at("/choices/0/finish_reason").asText();
        assertTrue(finish.equals("length") && completion == 5 || finish.equals("stop") && completion <= 5, r.toString());
        assertTrue(r.at("/usage/prompt_tokens").asInt() > 10);
    }
}
