package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

class EncoderTest {
    private static final Model MODEL = Fixtures.MODEL;
    private static final ModelConfig CFG = Fixtures.TINY;

    @Test
    void imageBecomesTokensPerImageRowsOfTheDecoderWidth() {
        HiddenState state = Fixtures.encode(MODEL, 1);
        assertEquals(CFG.tokensPerImage(), state.tokens());
        assertEquals(CFG.width(), state.width());
        assertEquals(CFG.hiddenStateBytes(1), state.bytes());
        for (float v : state.data()) {
            assertFalse(Float.isNaN(v) || Float.isInfinite(v));
        }
    }

    @Test
    void videoFramesAreEncodedInOrderWithATemporalEmbedding() {
        float[] a = TestImages.pattern(CFG, 1);
        float[] b = TestImages.pattern(CFG, 2);
        HiddenState video = MODEL.encode(Media.ofFrames(List.of(a, b, a), CFG));
        assertEquals(3 * CFG.tokensPerImage(), video.tokens());
        assertEquals(CFG.hiddenStateBytes(3), video.bytes());
        int t = CFG.tokensPerImage();
        // Frame 0 of a video is encoded exactly like the image alone.
        assertEquals(MODEL.encode(Media.ofFrames(List.of(a), CFG)), video.rows(0, t));
        // The same picture later in the video differs: the frame embedding tells frames apart.
        assertNotEquals(video.rows(0, t), video.rows(2 * t, 3 * t));
    }

    @Test
    void onePixelChangesTheHiddenState() {
        float[] frame = TestImages.pattern(CFG, 1);
        HiddenState before = MODEL.encode(Media.ofFrames(List.of(frame), CFG));
        frame[(40 * 64 + 40) * 3 + 1] = 1f - frame[(40 * 64 + 40) * 3 + 1];
        assertNotEquals(before, MODEL.encode(Media.ofFrames(List.of(frame), CFG)));
    }

    @Test
    void fullAttentionLetsEveryPatchInfluenceEveryToken() {
        // Change the top-left pixel only: with a layer attending over the whole frame, the merged
        // token of the bottom-right corner changes too.
        float[] frame = TestImages.pattern(CFG, 4);
        HiddenState before = MODEL.encode(Media.ofFrames(List.of(frame), CFG));
        frame[0] = 1f - frame[0];
        HiddenState after = MODEL.encode(Media.ofFrames(List.of(frame), CFG));
        int last = CFG.tokensPerImage() - 1;
        assertNotEquals(before.rows(last, last + 1), after.rows(last, last + 1));
    }

    @Test
    void hiddenStateRoundTripsThroughLittleEndianBytes() {
        HiddenState state = Fixtures.encode(MODEL, 3);
        byte[] bytes = state.toLittleEndianBytes();
        assertEquals(state.bytes(), bytes.length);
        assertEquals(Float.floatToRawIntBits(state.data()[0]),
                (bytes[0] & 0xff) | (bytes[1] & 0xff) << 8 | (bytes[2] & 0xff) << 16 | (bytes[3] & 0xff) << 24);
        byte[] padded = new byte[bytes.length + 304];
        System.arraycopy(bytes, 0, padded, 304, bytes.length);
        assertEquals(state, HiddenState.fromLittleEndianBytes(state.tokens(), state.width(), padded, 304));
        assertThrows(IllegalArgumentException.class,
                () -> HiddenState.fromLittleEndianBytes(state.tokens() + 1, state.width(), bytes, 0));
    }

    @Test
    void hiddenStateValidatesItsShape() {
        assertThrows(IllegalArgumentException.class, () -> new HiddenState(2, 3, new float[5]));
        assertThrows(IllegalArgumentException.class, () -> new HiddenState(1, 0, new float[0]));
        float[] data = new float[6];
        HiddenState a = new HiddenState(2, 3, data);
        HiddenState b = new HiddenState(2, 3, Arrays.copyOf(data, 6));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertArrayEquals(new float[3], a.rows(1, 2).data());
    }

    @Test
    void encoderRejectsMediaOfAnotherSize() {
        Media demoSized = Media.ofFrames(List.of(TestImages.pattern(ModelConfig.demo(), 1)), ModelConfig.demo());
        assertThrows(IllegalArgumentException.class, () -> MODEL.encode(demoSized));
    }

    @Test
    void fingerprintsAreStableAndDependOnConfigAndSeed() {
        Model same = Model.create(CFG, Fixtures.SEED);
        assertEquals(MODEL.encoderFingerprint(), same.encoderFingerprint());
        assertEquals(MODEL.kvFingerprint(), same.kvFingerprint());
        assertEquals(16, MODEL.encoderFingerprint().length());
        assertNotEquals(MODEL.encoderFingerprint(), Model.create(ModelConfig.demo(), Fixtures.SEED).encoderFingerprint());
        assertNotEquals(MODEL.kvFingerprint(), MODEL.encoderFingerprint());
    }
}
