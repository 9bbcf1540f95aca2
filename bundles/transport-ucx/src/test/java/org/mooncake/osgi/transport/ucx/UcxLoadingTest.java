package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Loading libucp into a JVM, and transports asked for that this host does not have. */
class UcxLoadingTest {
    private static String field(Object o) {
        return o.toString();
    }

    /**
     * With UCX's own error handlers a JVM dies at its first implicit NullPointerException (UCX
     * takes the SIGSEGV the JVM raises it through): UCX_HANDLE_ERRORS=none must be in force. The
     * loop runs long enough for the JIT to compile it with implicit (signal-based) null checks.
     */
    @Test
    void implicitNullPointerExceptionsDoNotEndTheJvmOnceUcxIsLoaded() {
        UcxRequired.ucx();
        assertEquals("none", Libc.getenv("UCX_HANDLE_ERRORS"));
        try (UcxTransport t = new UcxTransport(UcxTransport.with("posix,self"))) {
            Object nothing = null;
            int caught = 0;
            for (int i = 0; i < 100_000; i++) {
                try {
                    field(nothing);
                } catch (NullPointerException expected) {
                    caught++;
                }
            }
            assertEquals(100_000, caught);
            assertTrue(t.transports().contains("posix"));
        }
    }

    /** UCX would quietly use what else it has; a transport asked for and missing fails, naming what is here. */
    @ParameterizedTest
    @ValueSource(strings = {"rc", "cuda_copy", "posix,cuda_copy", "ib"})
    void aTransportThatIsNotAvailableFailsWithWhatTheHostOffers(String tls) {
        UcxRequired.ucx();
        var e = assertThrows(IllegalStateException.class, () -> new UcxTransport(UcxTransport.with(tls)).close());
        String missing = tls.contains(",") ? tls.substring(tls.indexOf(',') + 1) : tls;
        assertTrue(e.getMessage().contains("UCX transport(s) " + missing), e.getMessage());
        assertTrue(e.getMessage().contains("not available") && e.getMessage().contains("tcp")
                && e.getMessage().contains("ucx_info -d"), e.getMessage());
    }

    @Test
    void availabilityIsReportedWithAReasonOnlyWhenMissing() {
        if (UcxTransport.available()) {
            assertEquals(null, UcxTransport.unavailableReason());
        } else {
            assertTrue(UcxTransport.unavailableReason().contains("libucx0"), UcxTransport.unavailableReason());
        }
    }
}
