package org.mooncake.osgi.epd.worker.impl;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;

/** Images and animated GIFs made in code, as data URLs: distinct per seed, the same bytes every run. */
final class TestMedia {
    private TestMedia() {
    }

    static BufferedImage picture(int seed, int size) {
        BufferedImage img = new BufferedImage(size, size, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < size; y++) {
            for (int x = 0; x < size; x++) {
                int r = (x * 7 + seed * 53) & 255;
                int g = (y * 5 + seed * 31 + x * y / 7) & 255;
                int b = ((x ^ y) * 3 + seed * 97) & 255;
                img.setRGB(x, y, new Color(r, g, b).getRGB());
            }
        }
        return img;
    }

    static String png(int seed, int size) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(picture(seed, size), "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(out.toByteArray());
    }

    /** An animated GIF of {@code frames} frames: a video item. */
    static String gif(int seed, int size, int frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageWriter w = ImageIO.getImageWritersByFormatName("gif").next();
        try (ImageOutputStream ios = ImageIO.createImageOutputStream(out)) {
            w.setOutput(ios);
            w.prepareWriteSequence(null);
            for (int f = 0; f < frames; f++) {
                BufferedImage img = picture(seed * 10 + f, size);
                IIOMetadata meta = w.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(img), null);
                IIOMetadataNode root = (IIOMetadataNode) meta.getAsTree(meta.getNativeMetadataFormatName());
                IIOMetadataNode control = new IIOMetadataNode("GraphicControlExtension");
                control.setAttribute("disposalMethod", "none");
                control.setAttribute("userInputFlag", "FALSE");
                control.setAttribute("transparentColorFlag", "FALSE");
                control.setAttribute("delayTime", "10");
                control.setAttribute("transparentColorIndex", "0");
                root.appendChild(control);
                meta.setFromTree(meta.getNativeMetadataFormatName(), root);
                w.writeToSequence(new IIOImage(img, null, meta), null);
            }
            w.endWriteSequence();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            w.dispose();
        }
        return "data:image/gif;base64," + Base64.getEncoder().encodeToString(out.toByteArray());
    }
}
