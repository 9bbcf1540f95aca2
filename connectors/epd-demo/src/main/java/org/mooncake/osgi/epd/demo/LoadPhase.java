package org.mooncake.osgi.epd.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Sends a list of requests streamed, {@code concurrency} at a time, in order: the time to the
 * first content chunk is the TTFT, the time to {@code [DONE]} the latency.
 */
public final class LoadPhase {
    private LoadPhase() {
    }

    public static LoadRun run(String path, String base, List<Prompt> prompts, int concurrency, DemoHttp http)
            throws InterruptedException {
        long start = System.nanoTime();
        List<Future<ChatAnswer>> futures = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            for (Prompt p : prompts) {
                futures.add(pool.submit(() -> http.stream(base, p, chunk -> { })));
            }
            List<ChatAnswer> answers = new ArrayList<>();
            for (Future<ChatAnswer> f : futures) {
                answers.add(f.get());
            }
            return new LoadRun(path, concurrency, (System.nanoTime() - start) / 1e9, answers);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a load request failed unexpectedly", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many answers of {@code a} equal the answer to the same request in {@code b}. */
    public static int exactMatches(LoadRun a, LoadRun b) {
        int n = 0;
        for (int i = 0; i < Math.min(a.requests(), b.requests()); i++) {
            n += a.answers().get(i).sameAs(b.answers().get(i)) ? 1 : 0;
        }
        return n;
    }
}
