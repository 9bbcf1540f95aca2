package org.mooncake.osgi.device.cuda;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * For GPU tests (tag {@code gpu}): the CUDA driver, or the test is skipped with the reason
 * there is none, unless {@code -Dmooncake.gpu.required=true}, where a missing GPU fails it (the
 * GPU machine must not skip silently).
 */
final class Gpu {
    static final String REQUIRED = "mooncake.gpu.required";

    private Gpu() {
    }

    static CudaDriver driver() {
        CudaDriver.Load load = CudaDriver.load();
        if (load.driver().isEmpty()) {
            if (Boolean.getBoolean(REQUIRED)) {
                fail("-D" + REQUIRED + "=true but " + load.reason());
            }
            assumeTrue(false, "GPU test skipped: " + load.reason());
        }
        return load.driver().get();
    }
}
