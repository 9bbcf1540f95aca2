package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Encoder, prefill and decode run in different JVMs; they must compute the same bits. */
class CrossProcessDeterminismTest {

    @Test
    void sameInputsTwiceGiveIdenticalBytesAndTokens() {
        Model again = Model.create(Fixtures.TINY, Fixtures.SEED);
        HiddenState first = Fixtures.encode(Fixtures.MODEL, 2);
        HiddenState second = Fixtures.encode(again, 2);
        assertArrayEquals(first.toLittleEndianBytes(), second.toLittleEndianBytes());
        assertArrayEquals(Fixtures.answer(Fixtures.MODEL, first), Fixtures.answer(again, second));
        assertEquals(DeterminismProbe.run(Fixtures.TINY, Fixtures.SEED), DeterminismProbe.run(Fixtures.TINY, Fixtures.SEED));
    }

    @Test
    void concurrentRequestsComputeWhatSerialOnesDo() throws Exception {
        List<Integer> kinds = List.of(0, 1, 2, 3, 4, 5);
        List<String> serial = kinds.stream().map(CrossProcessDeterminismTest::answerOf).toList();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<String>> parallel = pool.invokeAll(kinds.stream()
                    .map(k -> (java.util.concurrent.Callable<String>) () -> answerOf(k)).toList());
            for (int i = 0; i < kinds.size(); i++) {
                assertEquals(serial.get(i), parallel.get(i).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aForkedJvmComputesTheSameHiddenStateAndAnswer() throws Exception {
        String expected = DeterminismProbe.run(Fixtures.TINY, Fixtures.SEED);
        assertEquals(expected, fork());
    }

    @Test
    void theInterpreterComputesWhatTheVectorizedJitDoes() throws Exception {
        // -Xint runs every loop scalar and in source order: the JIT's vector code must agree bit for bit.
        assertEquals(DeterminismProbe.run(Fixtures.TINY, Fixtures.SEED), fork("-Xint"));
    }

    private static String answerOf(int kind) {
        HiddenState state = Fixtures.encode(Fixtures.MODEL, kind);
        return state.sha256() + " " + java.util.Arrays.toString(Fixtures.answer(Fixtures.MODEL, state));
    }

    private static String fork(String... flags) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(DeterminismProbe.command(java, flags)).redirectErrorStream(true).start();
        boolean done = process.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            process.destroyForcibly();
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(done, "probe did not finish: " + output);
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
