package org.mooncake.osgi.epd.demo;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOInvalidTreeException;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * Writes an animated GIF with the JDK's GIF writer. ImageIO writes one image per {@code write}
 * unless told otherwise: the frames go through {@code writeToSequence}, each with a graphic
 * control extension (its delay; disposal "none", so each full frame replaces the last; no
 * transparency, so no pixel shows through), and the first carries the NETSCAPE2.0 loop extension
 * that players expect of an animation.
 */
final class GifWriter {
    private static final String FORMAT = "javax_imageio_gif_image_1.0";

    private GifWriter() {
    }

    static byte[] write(List<BufferedImage> frames, int delayCentis) {
        if (frames.isEmpty()) {
            throw new IllegalArgumentException("a GIF needs at least one frame");
        }
        ImageWriter writer = ImageIO.getImageWritersByFormatName("gif").next();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ImageOutputStream out = new MemoryCacheImageOutputStream(bytes)) {
            writer.setOutput(out);
            writer.prepareWriteSequence(null);
            for (int i = 0; i < frames.size(); i++) {
                BufferedImage frame = frames.get(i);
                ImageWriteParam param = writer.getDefaultWriteParam();
                IIOMetadata meta = writer.getDefaultImageMetadata(new ImageTypeSpecifier(frame), param);
                meta.mergeTree(FORMAT, frameTree(delayCentis, i == 0));
                writer.writeToSequence(new IIOImage(frame, null, meta), param);
            }
            writer.endWriteSequence();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writer.dispose();
        }
        return bytes.toByteArray();
    }

    private static IIOMetadataNode frameTree(int delayCentis, boolean first) throws IIOInvalidTreeException {
        IIOMetadataNode root = new IIOMetadataNode(FORMAT);
        IIOMetadataNode control = new IIOMetadataNode("GraphicControlExtension");
        control.setAttribute("disposalMethod", "none");
        control.setAttribute("userInputFlag", "FALSE");
        control.setAttribute("transparentColorFlag", "FALSE");
        control.setAttribute("delayTime", Integer.toString(delayCentis));
        control.setAttribute("transparentColorIndex", "0");
        root.appendChild(control);
        if (first) {
            IIOMetadataNode apps = new IIOMetadataNode("ApplicationExtensions");
            IIOMetadataNode loop = new IIOMetadataNode("ApplicationExtension");
            loop.setAttribute("applicationID", "NETSCAPE");
            loop.setAttribute("authenticationCode", "2.0");
            loop.setUserObject(new byte[] {1, 0, 0}); // sub-block 1: loop count 0, forever
            apps.appendChild(loop);
            root.appendChild(apps);
        }
        return root;
    }
}
