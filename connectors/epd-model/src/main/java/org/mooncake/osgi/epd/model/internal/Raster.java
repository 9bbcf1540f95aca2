package org.mooncake.osgi.epd.model.internal;

/** A decoded frame: {@code width x height} ARGB pixels, row-major. */
public record Raster(int width, int height, int[] argb) {
}
