package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

class MediaIdsTest {

    @Test
    void aDataUrlIsKnownByItsBytesNotItsSpelling() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3, 4, 5, 6};
        String b64 = Base64.getEncoder().encodeToString(png);
        String plain = "data:image/png;base64," + b64;
        String wrapped = "data:image/x-whatever;base64," + b64.substring(0, 4) + "\r\n" + b64.substring(4);
        assertEquals(MediaIds.of(plain), MediaIds.of(wrapped));
        assertTrue(MediaIds.of(plain).startsWith(MediaIds.BYTES_PREFIX));
        assertEquals(MediaIds.BYTES_PREFIX.length() + 64, MediaIds.of(plain).length());
    }

    @Test
    void knownVector() {
        assertEquals(MediaIds.BYTES_PREFIX + "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                MediaIds.of("data:text/plain;base64," + Base64.getEncoder().encodeToString("abc".getBytes(StandardCharsets.US_ASCII))));
        assertEquals(MediaIds.BYTES_PREFIX + "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                MediaIds.of("data:,abc"));
    }

    @Test
    void percentEncodedDataAndRemoteUrls() {
        assertArrayEquals("a b+c".getBytes(StandardCharsets.US_ASCII), MediaIds.dataUrlBytes("data:,a%20b+c"));
        String remote = MediaIds.of("https://example.com/cat.png");
        assertTrue(remote.startsWith(MediaIds.URL_PREFIX));
        assertNotEquals(remote, MediaIds.of("https://example.com/dog.png"));
    }

    @Test
    void malformedInputIsRefusedClearly() {
        assertThrows(IllegalArgumentException.class, () -> MediaIds.of(""));
        assertThrows(IllegalArgumentException.class, () -> MediaIds.of(null));
        var noComma = assertThrows(IllegalArgumentException.class, () -> MediaIds.of("data:image/png;base64"));
        assertTrue(noComma.getMessage().contains("','"));
        assertThrows(IllegalArgumentException.class, () -> MediaIds.of("data:image/png;base64,@@@@"));
    }
}
