package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ModelConfigTest {

    @Test
    void demoHiddenStateIsOneMebibytePerImageAndEightPerVideo() {
        ModelConfig demo = ModelConfig.demo();
        assertEquals(256, demo.tokensPerImage());
        assertEquals(1 << 20, demo.hiddenStateBytes(1));
        assertEquals(8 << 20, demo.hiddenStateBytes(demo.maxFrames()));
        assertEquals(128, demo.kvDim());
        assertEquals(2 * 2 * 128 * 4, demo.kvBytesPerToken());
    }

    @Test
    void tinySizes() {
        ModelConfig tiny = ModelConfig.tiny();
        assertEquals(64, tiny.patchesPerImage());
        assertEquals(16, tiny.tokensPerImage());
        assertEquals(16 * 64 * 4, tiny.hiddenStateBytes(1));
        assertEquals(64, tiny.kvDim());
        assertEquals(3L * 2 * 64 * 4, tiny.kvBytesPerToken());
    }

    @Test
    void demoMixesWindowAndFullAttention() {
        ModelConfig demo = ModelConfig.demo();
        assertEquals(8, demo.windowPatches());
        assertFalse(demo.fullAttention(0));
        assertTrue(demo.fullAttention(demo.encoderLayers() - 1));
    }

    @Test
    void namedKnowsTinyAndDemoOnly() {
        assertEquals(ModelConfig.tiny(), ModelConfig.named("tiny"));
        assertEquals(ModelConfig.demo(), ModelConfig.named("demo"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelConfig.named("huge"));
        assertTrue(e.getMessage().contains("huge"));
    }

    @Test
    void macCountsFollowTheArchitecture() {
        ModelConfig demo = ModelConfig.demo();
        long p = 1024;
        long e = 128;
        long expectedEncoder = p * 192 * e
                + (p * e * 3 * e + p * e * e + 2 * p * e * 256 + 2 * p * 64 * e)
                + (p * e * 3 * e + p * e * e + 2 * p * e * 256 + 2 * p * p * e)
                + 256L * (512 * 512 + 512 * 1024);
        assertEquals(expectedEncoder, demo.encoderMacs(1));
        assertEquals(8 * expectedEncoder, demo.encoderMacs(8));
        // One more prefilled token costs what a decode step at that context costs, less the LM head run once.
        long lmHead = 1024L * Tokens.VOCAB;
        assertEquals(demo.prefillMacs(301) - demo.prefillMacs(300), demo.decodeMacs(300) - lmHead);
    }

    @Test
    void rejectsInconsistentSizes() {
        assertThrows(IllegalArgumentException.class,
                () -> new ModelConfig("bad", 60, 8, 2, 32, 2, 2, 64, 64, 2, 2, 16, 128, 4, 512));
        assertThrows(IllegalArgumentException.class,
                () -> new ModelConfig("bad", 64, 8, 2, 30, 2, 4, 64, 64, 2, 2, 16, 128, 4, 512));
        assertThrows(IllegalArgumentException.class,
                () -> new ModelConfig("bad", 64, 8, 2, 32, 2, 2, 64, 64, 2, 2, 15, 128, 4, 512));
        assertThrows(IllegalArgumentException.class,
                () -> new ModelConfig("bad", 64, 8, 2, 32, 2, 2, 64, 64, 2, 2, 16, 128, 0, 512));
    }
}
