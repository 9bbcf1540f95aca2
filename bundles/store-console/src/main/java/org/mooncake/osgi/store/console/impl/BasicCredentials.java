package org.mooncake.osgi.store.console.impl;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/** The user name and password of an HTTP Basic {@code Authorization} header. */
record BasicCredentials(String user, String password) {
    private static final String SCHEME = "basic ";

    /** The credentials of {@code header}, or null when it carries none (absent, another scheme, not Base64). */
    static BasicCredentials parse(String header) {
        if (header == null || !header.strip().toLowerCase(Locale.ROOT).startsWith(SCHEME)) {
            return null;
        }
        String encoded = header.strip().substring(SCHEME.length()).strip();
        String decoded;
        try {
            // ISO-8859-1 as the console's own Basic provider decodes, so both read the same password
            decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.ISO_8859_1);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? new BasicCredentials(decoded, "")
                : new BasicCredentials(decoded.substring(0, colon), decoded.substring(colon + 1));
    }
}
