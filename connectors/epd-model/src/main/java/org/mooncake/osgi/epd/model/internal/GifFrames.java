package org.mooncake.osgi.epd.model.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.imageio.ImageReader;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;

import org.w3c.dom.Node;

/**
 * Composites the frames of a (possibly animated) GIF onto its logical screen, honouring frame
 * offsets, transparency and the disposal methods, and keeps a uniform sample of them. The
 * compositing is plain pixel copying, so it is exact.
 */
final class GifFrames {
    private static final String IMAGE_FORMAT = "javax_imageio_gif_image_1.0";
    private static final String STREAM_FORMAT = "javax_imageio_gif_stream_1.0";

    private GifFrames() {
    }

    static List<Raster> read(ImageReader reader, int maxFrames) throws IOException {
        int count = reader.getNumImages(true);
        if (count <= 0) {
            throw ImageDecoder.corrupt("GIF without frames", null);
        }
        int[] screen = screenSize(reader);
        int width = screen[0];
        int height = screen[1];
        ImageDecoder.checkSize(width, height);
        boolean[] keep = sample(count, maxFrames);
        int[] canvas = new int[width * height];
        List<Raster> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Raster frame = ImageDecoder.toRaster(reader.read(i));
            IIOMetadataNode meta = root(reader.getImageMetadata(i), IMAGE_FORMAT);
            IIOMetadataNode descriptor = child(meta, "ImageDescriptor");
            int left = intAttribute(descriptor, "imageLeftPosition", 0);
            int top = intAttribute(descriptor, "imageTopPosition", 0);
            IIOMetadataNode control = child(meta, "GraphicControlExtension");
            String disposal = control == null ? "none" : control.getAttribute("disposalMethod");
            int[] previous = disposal.equals("restoreToPrevious") ? canvas.clone() : null;
            draw(canvas, width, height, frame, left, top);
            if (keep[i]) {
                frames.add(new Raster(width, height, canvas.clone()));
            }
            if (disposal.equals("restoreToBackgroundColor")) {
                clear(canvas, width, height, frame, left, top);
            } else if (previous != null) {
                canvas = previous;
            }
        }
        return frames;
    }

    /** Which of {@code count} frames to keep: all, or {@code max} at the centres of equal spans. */
    static boolean[] sample(int count, int max) {
        boolean[] keep = new boolean[count];
        if (count <= max) {
            Arrays.fill(keep, true);
            return keep;
        }
        for (int i = 0; i < max; i++) {
            keep[(int) (((2L * i + 1) * count) / (2L * max))] = true;
        }
        return keep;
    }

    private static int[] screenSize(ImageReader reader) throws IOException {
        IIOMetadata stream = reader.getStreamMetadata();
        if (stream != null) {
            IIOMetadataNode screen = child(root(stream, STREAM_FORMAT), "LogicalScreenDescriptor");
            int w = intAttribute(screen, "logicalScreenWidth", 0);
            int h = intAttribute(screen, "logicalScreenHeight", 0);
            if (w > 0 && h > 0) {
                return new int[] {w, h};
            }
        }
        return new int[] {reader.getWidth(0), reader.getHeight(0)};
    }

    private static void draw(int[] canvas, int width, int height, Raster frame, int left, int top) {
        for (int y = 0; y < frame.height(); y++) {
            int cy = top + y;
            if (cy < 0 || cy >= height) {
                continue;
            }
            for (int x = 0; x < frame.width(); x++) {
                int cx = left + x;
                int pixel = frame.argb()[y * frame.width() + x];
                if (cx >= 0 && cx < width && (pixel >>> 24) != 0) {
                    canvas[cy * width + cx] = pixel;
                }
            }
        }
    }

    private static void clear(int[] canvas, int width, int height, Raster frame, int left, int top) {
        for (int y = Math.max(0, top); y < Math.min(height, top + frame.height()); y++) {
            for (int x = Math.max(0, left); x < Math.min(width, left + frame.width()); x++) {
                canvas[y * width + x] = 0;
            }
        }
    }

    private static IIOMetadataNode root(IIOMetadata metadata, String format) {
        return (IIOMetadataNode) metadata.getAsTree(format);
    }

    private static IIOMetadataNode child(IIOMetadataNode parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeName().equals(name)) {
                return (IIOMetadataNode) n;
            }
        }
        return null;
    }

    private static int intAttribute(IIOMetadataNode node, String name, int fallback) {
        if (node == null || node.getAttribute(name).isEmpty()) {
            return fallback;
        }
        return Integer.parseInt(node.getAttribute(name));
    }
}
