package org.mooncake.osgi.epd.model.internal;

import org.mooncake.osgi.epd.model.ModelConfig;

/** Work arrays for one encode call, reused across frames, layers and windows. */
final class EncoderScratch {
    final float[][] patches;
    final float[][] x;
    final float[][] xn;
    final float[][] qkv;
    final float[][] attn;
    final float[][] o;
    final float[][] hidden;
    final float[][] keysT;
    final float[][] values;
    final float[] scores;
    final float[][] probsT;
    final float[][] outT;
    final float[] inv;
    final float[][] merged;
    final float[][] mergedHidden;
    final float[][] out;

    EncoderScratch(ModelConfig cfg) {
        int p = cfg.patchesPerImage();
        int e = cfg.encoderWidth();
        patches = new float[p][cfg.patchDim()];
        x = new float[p][e];
        xn = new float[p][e];
        qkv = new float[p][3 * e];
        attn = new float[p][e];
        o = new float[p][e];
        hidden = new float[p][cfg.encoderMlp()];
        keysT = new float[e][p];
        values = new float[p][e];
        scores = new float[p];
        probsT = new float[p][p];
        outT = new float[e / cfg.encoderHeads()][p];
        inv = new float[p];
        merged = new float[cfg.tokensPerImage()][cfg.mergedWidth()];
        mergedHidden = new float[cfg.tokensPerImage()][cfg.mergedWidth()];
        out = new float[cfg.tokensPerImage()][cfg.width()];
    }
}
