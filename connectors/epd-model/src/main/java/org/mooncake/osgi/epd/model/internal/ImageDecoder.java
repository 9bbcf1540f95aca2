package org.mooncake.osgi.epd.model.internal;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.event.IIOReadWarningListener;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;

/**
 * Decodes PNG, JPEG and GIF with the JDK's ImageIO readers. An animated GIF becomes its
 * composited frames, sampled uniformly to at most {@code maxFrames}. Any decoder warning (a
 * truncated JPEG decodes "successfully" with a warning) is treated as corruption, so a worker
 * never answers from half an image.
 */
public final class ImageDecoder {
    /** Guards against decompression bombs: the largest frame accepted. */
    public static final int MAX_SIDE = 16384;
    public static final long MAX_PIXELS = 64L * 1024 * 1024;

    private ImageDecoder() {
    }

    public static List<Raster> decode(byte[] encoded, int maxFrames) {
        if (encoded == null || encoded.length == 0) {
            throw corrupt("empty input", null);
        }
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(encoded))) {
            Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
            if (!readers.hasNext()) {
                throw corrupt("no PNG, JPEG or GIF signature", null);
            }
            ImageReader reader = readers.next();
            try {
                String format = reader.getFormatName().toLowerCase(Locale.ROOT);
                if (!format.equals("png") && !format.equals("jpeg") && !format.equals("gif")) {
                    throw corrupt("format " + format + " is not PNG, JPEG or GIF", null);
                }
                List<String> warnings = new ArrayList<>();
                reader.addIIOReadWarningListener(recorder(warnings));
                reader.setInput(in, false, false);
                List<Raster> frames = format.equals("gif") ? GifFrames.read(reader, maxFrames) : List.of(single(reader));
                if (!warnings.isEmpty()) {
                    throw corrupt(format + " decoder warning: " + warnings.getFirst(), null);
                }
                return frames;
            } finally {
                reader.dispose();
            }
        } catch (CorruptImage e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // ImageIO reports damaged data with IIOException but also with runtime exceptions.
            throw corrupt(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
        }
    }

    private static Raster single(ImageReader reader) throws IOException {
        checkSize(reader.getWidth(0), reader.getHeight(0));
        return toRaster(reader.read(0));
    }

    static void checkSize(int width, int height) {
        if (width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE || (long) width * height > MAX_PIXELS) {
            throw corrupt("image of " + width + "x" + height + " pixels is outside 1.." + MAX_SIDE
                    + " per side or over " + MAX_PIXELS + " pixels", null);
        }
    }

    static Raster toRaster(BufferedImage image) {
        int w = image.getWidth();
        int h = image.getHeight();
        return new Raster(w, h, image.getRGB(0, 0, w, h, null, 0, w));
    }

    private static IIOReadWarningListener recorder(List<String> warnings) {
        return (source, warning) -> warnings.add(warning);
    }

    public static IllegalArgumentException corrupt(String why, Throwable cause) {
        return new CorruptImage("unsupported or corrupt image: " + why, cause);
    }

    /** Marks our own rejections so the catch-all above passes them on unchanged. */
    private static final class CorruptImage extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        CorruptImage(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
