package org.mooncake.osgi.epd.model;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import javax.imageio.ImageIO;

/** Synthetic test images: float frames and encoded PNG/JPEG drawn with java2d. */
final class TestImages {
    private TestImages() {
    }

    /** A frame of {@code cfg.imageSize()}² RGB in [0,1]; different {@code kind}s look clearly different. */
    static float[] pattern(ModelConfig cfg, int kind) {
        int s = cfg.imageSize();
        float[] f = new float[s * s * 3];
        for (int y = 0; y < s; y++) {
            for (int x = 0; x < s; x++) {
                int o = (y * s + x) * 3;
                float r;
                float g;
                float b;
                switch (kind) {
                    case 0 -> {
                        r = 1;
                        g = 0;
                        b = 0;
                    }
                    case 1 -> {
                        r = (float) x / s;
                        g = (float) y / s;
                        b = 0.5f;
                    }
                    case 2 -> {
                        boolean in = (x - s / 2) * (x - s / 2) + (y - s / 2) * (y - s / 2) < s * s / 9;
                        r = in ? 1 : 0;
                        g = in ? 1 : 0;
                        b = in ? 0 : 1;
                    }
                    case 3 -> {
                        boolean check = ((x / 8) + (y / 8)) % 2 == 0;
                        r = check ? 1 : 0;
                        g = r;
                        b = r;
                    }
                    default -> {
                        long h = (x * 73856093L ^ y * 19349663L ^ kind * 83492791L) * 0x9E3779B97F4A7C15L;
                        r = ((h >>> 8) & 255) / 255f;
                        g = ((h >>> 16) & 255) / 255f;
                        b = ((h >>> 24) & 255) / 255f;
                    }
                }
                f[o] = r;
                f[o + 1] = g;
                f[o + 2] = b;
            }
        }
        return f;
    }

    /** A {@code width x height} picture: background colour plus a filled oval. */
    static BufferedImage picture(int width, int height, Color background, Color shape, int type) {
        BufferedImage image = new BufferedImage(width, height, type);
        Graphics2D g = image.createGraphics();
        try {
            g.setColor(background);
            g.fillRect(0, 0, width, height);
            g.setColor(shape);
            g.fillOval(width / 4, height / 4, width / 2, height / 2);
        } finally {
            g.dispose();
        }
        return image;
    }

    static byte[] encode(BufferedImage image, String format) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, format, out)) {
                throw new IllegalStateException("no writer for " + format);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
