package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageInputStream;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.model.Media;
import org.mooncake.osgi.epd.model.ModelConfig;

class DemoMediaTest {
    @Test
    void aPngDecodesAtItsSizeAndTheSameSeedGivesTheSameBytes() throws IOException {
        byte[] png = DemoMedia.png(3, 256);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertEquals(256, image.getWidth());
        assertEquals(256, image.getHeight());
        assertArrayEquals(png, DemoMedia.png(3, 256), "deterministic bytes");
        assertFalse(Arrays.equals(png, DemoMedia.png(4, 256)), "another seed, another image");
        assertTrue(DemoMedia.pngDataUrl(3, 64).startsWith("data:image/png;base64,"));
        assertArrayEquals(DemoMedia.png(3, 64),
                Base64.getDecoder().decode(DemoMedia.pngDataUrl(3, 64).substring("data:image/png;base64,".length())));
    }

    @Test
    void distinctSeedsGiveImagesTheModelSeesAsDistinct() {
        ModelConfig cfg = ModelConfig.demo();
        java.util.Set<String> hashes = new java.util.HashSet<>();
        for (int seed = 1; seed <= 8; seed++) {
            hashes.add(Media.decode(DemoMedia.png(seed, 256), cfg).contentHash());
        }
        assertEquals(8, hashes.size(), "every matrix image reaches the encoder as a new item");
    }

    @Test
    void theVideoIsAnAnimatedGifOfEightDistinctFramesWithTheLoopExtension() throws IOException {
        byte[] gif = DemoMedia.gif(6, 64, 8);
        assertArrayEquals(gif, DemoMedia.gif(6, 64, 8), "deterministic bytes");
        try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(gif))) {
            ImageReader reader = ImageIO.getImageReadersByFormatName("gif").next();
            reader.setInput(in);
            assertEquals(8, reader.getNumImages(true));
            int[] first = pixels(reader.read(0));
            for (int i = 1; i < 8; i++) {
                BufferedImage frame = reader.read(i);
                assertEquals(64, frame.getWidth());
                assertFalse(Arrays.equals(first, pixels(frame)), "frame " + i + " moves");
            }
            IIOMetadataNode meta = (IIOMetadataNode) reader.getImageMetadata(0).getAsTree("javax_imageio_gif_image_1.0");
            assertEquals("NETSCAPE", ((IIOMetadataNode) meta.getElementsByTagName("ApplicationExtension").item(0))
                    .getAttribute("applicationID"));
            assertEquals("none", ((IIOMetadataNode) meta.getElementsByTagName("GraphicControlExtension").item(0))
                    .getAttribute("disposalMethod"));
            reader.dispose();
        }
    }

    @Test
    void theReferenceModelTakesTheVideoAsEightFramesAndTheTinyModelSamplesFour() {
        Media demo = Media.fromDataUrl(DemoMedia.gifDataUrl(6, 256, 8), ModelConfig.demo());
        assertEquals(8, demo.frames());
        assertTrue(demo.isVideo());
        assertEquals(4, Media.fromDataUrl(DemoMedia.gifDataUrl(6, 64, 8), ModelConfig.tiny()).frames());
        assertNotEquals(Media.fromDataUrl(DemoMedia.gifDataUrl(6, 64, 8), ModelConfig.tiny()).contentHash(),
                Media.fromDataUrl(DemoMedia.gifDataUrl(7, 64, 8), ModelConfig.tiny()).contentHash());
    }

    @Test
    void theDemoSizesAreTheReferenceModels() {
        for (ModelSize size : ModelSize.values()) {
            ModelConfig cfg = ModelConfig.named(size.id());
            assertEquals(cfg.imageSize(), size.imageSide(), size.id());
            assertEquals(cfg.maxFrames(), size.maxFrames(), size.id());
            assertEquals(cfg.hiddenStateBytes(1), size.hiddenBytes(1), size.id());
            assertEquals(cfg.hiddenStateBytes(cfg.maxFrames()), size.hiddenBytes(CaseMatrix.VIDEO_FRAMES), size.id());
        }
    }

    private static int[] pixels(BufferedImage image) {
        return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
    }
}
