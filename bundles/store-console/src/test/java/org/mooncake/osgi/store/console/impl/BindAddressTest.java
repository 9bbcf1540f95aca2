package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BindAddressTest {
    @Test
    void loopbackAddressesAndLocalhostKeepTheConsoleLocal() {
        assertTrue(BindAddress.isLoopback("127.0.0.1"));
        assertTrue(BindAddress.isLoopback("127.0.0.2"));
        assertTrue(BindAddress.isLoopback("::1"));
        assertTrue(BindAddress.isLoopback(" localhost "));
    }

    @Test
    void everyInterfaceAnotherAddressOrAnUnknownNameIsExposed() {
        assertFalse(BindAddress.isLoopback(null), "unset: Jetty binds every interface");
        assertFalse(BindAddress.isLoopback(""));
        assertFalse(BindAddress.isLoopback("0.0.0.0"));
        assertFalse(BindAddress.isLoopback("::"));
        assertFalse(BindAddress.isLoopback("192.0.2.7"));
        assertFalse(BindAddress.isLoopback("no-such-host.invalid"));
    }
}
