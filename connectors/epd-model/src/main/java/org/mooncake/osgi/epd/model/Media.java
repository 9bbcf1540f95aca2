package org.mooncake.osgi.epd.model;

import java.util.List;

import org.mooncake.osgi.epd.model.internal.DataUrl;
import org.mooncake.osgi.epd.model.internal.Hashing;
import org.mooncake.osgi.epd.model.internal.ImageDecoder;
import org.mooncake.osgi.epd.model.internal.Raster;
import org.mooncake.osgi.epd.model.internal.Resize;

/**
 * Decoded media: one frame for an image, up to {@code maxFrames} for a video; each frame is
 * {@code imageSize x imageSize} RGB in [0,1], HWC, after a bilinear resize. Immutable.
 */
public final class Media {
    private final int imageSize;
    private final float[][] frames;

    private Media(int imageSize, float[][] frames) {
        this.imageSize = imageSize;
        this.frames = frames;
    }

    /**
     * Decodes PNG, JPEG or GIF. An animated GIF is a video: its composited frames, sampled
     * uniformly to at most {@code cfg.maxFrames()}.
     *
     * @throws IllegalArgumentException "unsupported or corrupt image: ..." on anything else
     */
    public static Media decode(byte[] encoded, ModelConfig cfg) {
        List<Raster> rasters = ImageDecoder.decode(encoded, cfg.maxFrames());
        float[][] frames = new float[rasters.size()][];
        for (int i = 0; i < frames.length; i++) {
            Raster r = rasters.get(i);
            frames[i] = Resize.bilinear(r.argb(), r.width(), r.height(), cfg.imageSize());
        }
        return new Media(cfg.imageSize(), frames);
    }

    /** Decodes a {@code data:image/...;base64,...} URL. */
    public static Media fromDataUrl(String dataUrl, ModelConfig cfg) {
        return decode(DataUrl.decode(dataUrl), cfg);
    }

    /** Frames already {@code imageSize² * 3} floats in [0,1], HWC; copied. */
    public static Media ofFrames(List<float[]> rgbFrames, ModelConfig cfg) {
        if (rgbFrames.isEmpty() || rgbFrames.size() > cfg.maxFrames()) {
            throw new IllegalArgumentException("media needs 1.." + cfg.maxFrames() + " frames, got " + rgbFrames.size());
        }
        int floats = cfg.imageSize() * cfg.imageSize() * 3;
        float[][] frames = new float[rgbFrames.size()][];
        for (int i = 0; i < frames.length; i++) {
            float[] frame = rgbFrames.get(i);
            if (frame.length != floats) {
                throw new IllegalArgumentException("frame " + i + " has " + frame.length + " floats, expected " + floats);
            }
            for (float v : frame) {
                if (!(v >= 0f && v <= 1f)) {
                    throw new IllegalArgumentException("frame " + i + " has a value outside [0,1]: " + v);
                }
            }
            frames[i] = frame.clone();
        }
        return new Media(cfg.imageSize(), frames);
    }

    public int frames() {
        return frames.length;
    }

    public boolean isVideo() {
        return frames.length > 1;
    }

    public int imageSize() {
        return imageSize;
    }

    /** A copy of frame {@code i}. */
    public float[] frame(int i) {
        return frames[i].clone();
    }

    /** SHA-256 (hex) of the decoded pixels: equal for media that encode to the same hidden state. */
    public String contentHash() {
        return Hashing.sha256Hex(frames);
    }

    float[][] pixels() {
        return frames;
    }
}
