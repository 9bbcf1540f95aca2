package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * Skips a test where libucp is missing, with the reason; fails it instead when {@code
 * mooncake.ucx.required} is true (system property or MOONCAKE_UCX_REQUIRED), so that a machine
 * meant to test UCX never passes by skipping.
 */
final class UcxRequired {
    private UcxRequired() {
    }

    static boolean required() {
        return Boolean.getBoolean("mooncake.ucx.required") || "true".equalsIgnoreCase(System.getenv("MOONCAKE_UCX_REQUIRED"));
    }

    static void ucx() {
        if (UcxTransport.available()) {
            return;
        }
        if (required()) {
            fail("mooncake.ucx.required is true but " + UcxTransport.unavailableReason());
        }
        Assumptions.abort("skipped: " + UcxTransport.unavailableReason());
    }
}
