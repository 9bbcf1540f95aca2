package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A mount's log line names how a segment is reached without pasting a ucx worker address whole. */
class LoggedEndpointsTest {

    @Test
    void shortAddressesAreLoggedWhole() {
        assertEquals("127.0.0.1:7000", StoreMaster.loggable("127.0.0.1:7000"));
    }

    @Test
    void longAddressesAreLoggedAsTheirStartAndLength() {
        String blob = "a".repeat(48) + "b".repeat(452);
        String shown = StoreMaster.loggable(blob);
        assertTrue(shown.length() <= StoreMaster.LOGGED_ADDRESS_CHARS, shown);
        assertTrue(shown.startsWith("a".repeat(48)), shown);
        assertTrue(shown.endsWith("...(500 chars)"), shown);
    }
}
