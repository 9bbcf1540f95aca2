package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

class BasicCredentialsTest {
    static String header(String userColonPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void readsUserAndPasswordThePasswordMayHoldColons() {
        assertEquals(new BasicCredentials("admin", "admin"), BasicCredentials.parse(header("admin:admin")));
        assertEquals(new BasicCredentials("ops", "a:b"), BasicCredentials.parse("basic  " + header("ops:a:b").substring(6)));
        assertEquals(new BasicCredentials("alone", ""), BasicCredentials.parse(header("alone")));
    }

    @Test
    void noCredentialsWithoutABasicHeaderOrWithBadBase64() {
        assertNull(BasicCredentials.parse(null));
        assertNull(BasicCredentials.parse("Bearer abc"));
        assertNull(BasicCredentials.parse("Basic %%%"));
    }
}
