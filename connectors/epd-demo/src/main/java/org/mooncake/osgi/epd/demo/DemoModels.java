package org.mooncake.osgi.epd.demo;

/**
 * The two weight revisions every worker serves, sharing one store: the same model id at two
 * revisions must never read each other's hidden states or KV.
 */
public final class DemoModels {
    public static final String R1 = "mooncake-vl@r1";
    public static final String R2 = "mooncake-vl@r2";

    private DemoModels() {
    }

    /** The workers' {@code models} variable: {@code ID=SIZE:SEED,...}; the seed is the revision's weights. */
    public static String modelsVar(ModelSize size) {
        return R1 + "=" + size.id() + ":1," + R2 + "=" + size.id() + ":2";
    }
}
