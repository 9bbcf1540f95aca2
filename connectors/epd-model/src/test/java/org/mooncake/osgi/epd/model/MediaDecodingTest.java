package org.mooncake.osgi.epd.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MediaDecodingTest {
    private static final ModelConfig CFG = Fixtures.TINY;

    @Test
    void pngDecodesToTheImageColoursResized() {
        BufferedImage solid = TestImages.picture(150, 90, new Color(255, 0, 51), new Color(255, 0, 51),
                BufferedImage.TYPE_INT_ARGB);
        Media media = Media.decode(TestImages.encode(solid, "png"), CFG);
        assertEquals(1, media.frames());
        assertFalse(media.isVideo());
        float[] frame = media.frame(0);
        assertEquals(64 * 64 * 3, frame.length);
        for (int i = 0; i < frame.length; i += 3) {
            assertEquals(1f, frame[i]);
            assertEquals(0f, frame[i + 1]);
            assertEquals(51 / 255f, frame[i + 2]);
        }
    }

    @Test
    void pngKeepsTheShapeWhereItWas() {
        BufferedImage picture = TestImages.picture(128, 128, Color.BLACK, Color.WHITE, BufferedImage.TYPE_INT_RGB);
        float[] frame = Media.decode(TestImages.encode(picture, "png"), CFG).frame(0);
        assertEquals(1f, frame[(32 * 64 + 32) * 3]);
        assertEquals(0f, frame[(2 * 64 + 2) * 3]);
    }

    @Test
    void jpegDecodesCloseToTheOriginal() {
        BufferedImage picture = TestImages.picture(200, 120, new Color(20, 140, 220), new Color(240, 220, 10),
                BufferedImage.TYPE_INT_RGB);
        Media media = Media.decode(TestImages.encode(picture, "jpeg"), CFG);
        float[] frame = media.frame(0);
        // A corner pixel is background, the centre is the oval; JPEG is lossy, so a tolerance.
        assertEquals(20 / 255f, frame[0], 0.05f);
        assertEquals(140 / 255f, frame[1], 0.05f);
        int centre = (32 * 64 + 32) * 3;
        assertEquals(240 / 255f, frame[centre], 0.05f);
        assertEquals(10 / 255f, frame[centre + 2], 0.05f);
    }

    @Test
    void singleFrameGifIsAnImage() {
        BufferedImage picture = TestImages.picture(40, 40, Color.GREEN, Color.BLUE, BufferedImage.TYPE_INT_RGB);
        Media media = Media.decode(Gifs.animated(List.of(picture), List.of(new int[] {0, 0})), CFG);
        assertEquals(1, media.frames());
        assertEquals(1f, media.frame(0)[1]);
    }

    @Test
    void animatedGifIsAVideoSampledUniformly() {
        // 10 frames of distinct solid grey levels; tiny keeps at most 4: frames 1, 3, 6, 8 (span centres).
        List<BufferedImage> frames = new java.util.ArrayList<>();
        List<int[]> offsets = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Color grey = new Color(i * 20, i * 20, i * 20);
            frames.add(TestImages.picture(32, 32, grey, grey, BufferedImage.TYPE_INT_RGB));
            offsets.add(new int[] {0, 0});
        }
        Media media = Media.decode(Gifs.animated(frames, offsets), CFG);
        assertTrue(media.isVideo());
        assertEquals(4, media.frames());
        int[] expected = {1, 3, 6, 8};
        for (int f = 0; f < 4; f++) {
            assertEquals(expected[f] * 20 / 255f, media.frame(f)[0], 1e-6f, "frame " + f);
        }
    }

    @Test
    void gifFramesAreCompositedAtTheirOffsets() {
        BufferedImage background = TestImages.picture(32, 32, Color.RED, Color.RED, BufferedImage.TYPE_INT_RGB);
        BufferedImage patch = TestImages.picture(16, 16, Color.BLUE, Color.BLUE, BufferedImage.TYPE_INT_RGB);
        Media media = Media.decode(Gifs.animated(List.of(background, patch), List.of(new int[] {0, 0}, new int[] {16, 16})), CFG);
        assertEquals(2, media.frames());
        float[] second = media.frame(1);
        assertEquals(1f, second[0], "top-left keeps the first frame's red");
        int bottomRight = (63 * 64 + 63) * 3;
        assertEquals(0f, second[bottomRight]);
        assertEquals(1f, second[bottomRight + 2], "bottom-right shows the second frame's blue");
    }

    @Test
    void dataUrlsDecodeLikeTheirBytes() {
        BufferedImage picture = TestImages.picture(50, 70, Color.ORANGE, Color.MAGENTA, BufferedImage.TYPE_INT_RGB);
        for (String format : List.of("png", "jpeg", "gif")) {
            byte[] bytes = TestImages.encode(picture, format);
            String url = "data:image/" + format + ";base64," + Base64.getEncoder().encodeToString(bytes);
            assertEquals(Media.decode(bytes, CFG).contentHash(), Media.fromDataUrl(url, CFG).contentHash(), format);
        }
        byte[] png = TestImages.encode(picture, "png");
        String wrapped = "data:image/png;base64," + Base64.getMimeEncoder().encodeToString(png);
        assertEquals(Media.decode(png, CFG).contentHash(), Media.fromDataUrl(wrapped, CFG).contentHash(), "line breaks");
    }

    @Test
    void differentPicturesHaveDifferentContentHashes() {
        byte[] a = TestImages.encode(TestImages.picture(64, 64, Color.RED, Color.BLUE, BufferedImage.TYPE_INT_RGB), "png");
        byte[] b = TestImages.encode(TestImages.picture(64, 64, Color.RED, Color.GREEN, BufferedImage.TYPE_INT_RGB), "png");
        assertNotEquals(Media.decode(a, CFG).contentHash(), Media.decode(b, CFG).contentHash());
        assertEquals(Media.decode(a, CFG).contentHash(), Media.decode(a.clone(), CFG).contentHash());
    }

    @ParameterizedTest
    @ValueSource(strings = {"random", "truncated-png", "truncated-jpeg", "damaged-png", "empty", "bmp", "truncated-gif"})
    void corruptOrUnsupportedInputIsRejectedClearly(String kind) {
        BufferedImage picture = TestImages.picture(120, 80, Color.CYAN, Color.BLACK, BufferedImage.TYPE_INT_RGB);
        byte[] png = TestImages.encode(picture, "png");
        byte[] jpeg = TestImages.encode(picture, "jpeg");
        byte[] gif = TestImages.encode(picture, "gif");
        byte[] input = switch (kind) {
            case "random" -> new java.util.Random(5).ints(500, 0, 256).collect(java.io.ByteArrayOutputStream::new,
                    (out, b) -> out.write(b), (x, y) -> x.writeBytes(y.toByteArray())).toByteArray();
            case "truncated-png" -> Arrays.copyOf(png, png.length / 2);
            case "truncated-jpeg" -> Arrays.copyOf(jpeg, jpeg.length / 2);
            case "truncated-gif" -> Arrays.copyOf(gif, 40);
            case "damaged-png" -> {
                byte[] copy = png.clone();
                for (int i = 40; i < 60; i++) {
                    copy[i] ^= (byte) 0x5a;
                }
                yield copy;
            }
            case "bmp" -> TestImages.encode(picture, "bmp");
            default -> new byte[0];
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Media.decode(input, CFG));
        assertTrue(e.getMessage().startsWith("unsupported or corrupt image"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://example.com/a.png", "data:image/png;base64,@@@notbase64", "data:text/plain;base64,aGk=",
            "data:image/png,rawbytes", "data:image/png;base64"})
    void badDataUrlsAreRejectedClearly(String url) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Media.fromDataUrl(url, CFG));
        assertTrue(e.getMessage().startsWith("unsupported or corrupt image"), e.getMessage());
    }

    @Test
    void framesMustFitTheConfig() {
        float[] frame = TestImages.pattern(CFG, 1);
        assertThrows(IllegalArgumentException.class, () -> Media.ofFrames(List.of(), CFG));
        assertThrows(IllegalArgumentException.class,
                () -> Media.ofFrames(List.of(frame, frame, frame, frame, frame), CFG));
        assertThrows(IllegalArgumentException.class, () -> Media.ofFrames(List.of(new float[12]), CFG));
        float[] outOfRange = frame.clone();
        outOfRange[7] = 1.5f;
        assertThrows(IllegalArgumentException.class, () -> Media.ofFrames(List.of(outOfRange), CFG));
        float[] copy = frame.clone();
        Media media = Media.ofFrames(List.of(copy), CFG);
        copy[0] = 0.123f;
        assertArrayEquals(frame, media.frame(0), "ofFrames copies its input");
    }
}
