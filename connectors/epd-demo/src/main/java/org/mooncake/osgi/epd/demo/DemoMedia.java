package org.mooncake.osgi.epd.demo;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.WritableRaster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * The demo's media, drawn in code: every pixel is a function of the seed and its position
 * (integer arithmetic only, no fonts, no antialiasing), so the same seed gives the same bytes on
 * every machine, and different seeds give images that encode to different hidden states.
 */
public final class DemoMedia {
    /** 6 x 6 x 6 colour cube: a fixed palette, so a GIF needs no colour quantisation. */
    private static final IndexColorModel PALETTE = cube();

    private DemoMedia() {
    }

    /** A PNG of {@code side} x {@code side}: a two-colour gradient with a square and a disc placed by the seed. */
    public static byte[] png(int seed, int side) {
        BufferedImage image = new BufferedImage(side, side, BufferedImage.TYPE_INT_RGB);
        int[] p = params(seed, side);
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++) {
                image.setRGB(x, y, rgb(p, x, y, side, 0));
            }
        }
        return encode(image, "png");
    }

    /**
     * An animated GIF of {@code frames} frames of {@code side} x {@code side}: the same scene as
     * {@link #png} with the square moving a step per frame, so each frame differs.
     */
    public static byte[] gif(int seed, int side, int frames) {
        int[] p = params(seed, side);
        List<BufferedImage> images = new ArrayList<>();
        for (int f = 0; f < frames; f++) {
            BufferedImage image = new BufferedImage(side, side, BufferedImage.TYPE_BYTE_INDEXED, PALETTE);
            WritableRaster raster = image.getRaster();
            for (int y = 0; y < side; y++) {
                for (int x = 0; x < side; x++) {
                    raster.setSample(x, y, 0, paletteIndex(rgb(p, x, y, side, f)));
                }
            }
            images.add(image);
        }
        return GifWriter.write(images, 10);
    }

    public static String pngDataUrl(int seed, int side) {
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(png(seed, side));
    }

    public static String gifDataUrl(int seed, int side, int frames) {
        return "data:image/gif;base64," + Base64.getEncoder().encodeToString(gif(seed, side, frames));
    }

    /** Two gradient colours, the square's corner and size, the disc's centre and radius, from the seed. */
    private static int[] params(int seed, int side) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(0x5EED_0000L + seed);
        return new int[] {r.nextInt(0x1000000), r.nextInt(0x1000000), r.nextInt(side / 2), r.nextInt(side / 2),
            side / 8 + r.nextInt(side / 4), side / 4 + r.nextInt(side / 2), side / 4 + r.nextInt(side / 2),
            side / 10 + r.nextInt(side / 6), r.nextInt(0x1000000), r.nextInt(0x1000000)};
    }

    private static int rgb(int[] p, int x, int y, int side, int frame) {
        int sx = (p[2] + frame * Math.max(1, side / 16)) % side;
        int sy = p[3];
        if (x >= sx && x < sx + p[4] && y >= sy && y < sy + p[4]) {
            return p[8];
        }
        int dx = x - p[5];
        int dy = y - p[6];
        if (dx * dx + dy * dy <= p[7] * p[7]) {
            return p[9];
        }
        int t = (x + y) * 255 / (2 * side - 2);
        return mix(p[0], p[1], t);
    }

    private static int mix(int a, int b, int t) {
        int r = (((a >> 16) & 0xFF) * (255 - t) + ((b >> 16) & 0xFF) * t) / 255;
        int g = (((a >> 8) & 0xFF) * (255 - t) + ((b >> 8) & 0xFF) * t) / 255;
        int bl = ((a & 0xFF) * (255 - t) + (b & 0xFF) * t) / 255;
        return (r << 16) | (g << 8) | bl;
    }

    private static int paletteIndex(int rgb) {
        int r = (((rgb >> 16) & 0xFF) * 5 + 127) / 255;
        int g = (((rgb >> 8) & 0xFF) * 5 + 127) / 255;
        int b = ((rgb & 0xFF) * 5 + 127) / 255;
        return r * 36 + g * 6 + b;
    }

    private static IndexColorModel cube() {
        byte[] r = new byte[256];
        byte[] g = new byte[256];
        byte[] b = new byte[256];
        for (int i = 0; i < 216; i++) {
            r[i] = (byte) (i / 36 * 51);
            g[i] = (byte) (i / 6 % 6 * 51);
            b[i] = (byte) (i % 6 * 51);
        }
        return new IndexColorModel(8, 256, r, g, b);
    }

    static byte[] encode(BufferedImage image, String format) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, format, bytes)) {
                throw new IllegalStateException("no ImageIO writer for " + format);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
