package org.mooncake.osgi.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.Test;

/** The absent path, everywhere; the present one is in the gpu-tagged tests. */
class CudaDriverTest {

    @Test
    void aLibraryThatDoesNotLoadGivesOneReasonNamingIt() {
        var load = CudaDriver.load("libmooncake-no-such-cuda.so.1");
        assertFalse(load.present());
        assertTrue(load.driver().isEmpty());
        assertTrue(load.reason().startsWith("no CUDA driver here (libmooncake-no-such-cuda.so.1 does not load"),
                load.reason());
        assertTrue(load.reason().endsWith("): device memory is off"), load.reason());
        assertFalse(load.reason().contains("\n"), "one line");
    }

    @Test
    void aLibraryWithoutTheDriverCallsIsNotADriver() {
        // libc loads but has no cuInit
        var load = CudaDriver.load("libc.so.6");
        assertFalse(load.present());
        assertTrue(load.reason().contains("libc.so.6 lacks cuInit"), load.reason());
        assertTrue(load.reason().endsWith("device memory is off"), load.reason());
    }

    @Test
    void whereThereIsNoCudaDriverTheReasonNamesLibcuda() {
        var load = CudaDriver.load();
        assumeFalse(load.present() || Boolean.getBoolean(Gpu.REQUIRED),
                "libcuda.so.1 loads here: the absent path is checked on machines without a CUDA driver");
        assertTrue(load.reason().contains("libcuda.so.1"), load.reason());
        assertTrue(load.reason().endsWith("device memory is off"), load.reason());
        assertSame(load, CudaDriver.load(), "probed once per JVM");
    }

    @Test
    void theDefaultLibraryIsTheDriversNotTheRuntimes() {
        assertEquals("libcuda.so.1", CudaDriver.LIBRARY);
    }
}
