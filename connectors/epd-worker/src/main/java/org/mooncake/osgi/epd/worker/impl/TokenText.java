package org.mooncake.osgi.epd.worker.impl;

import org.mooncake.osgi.epd.model.Tokens;

/** Generated token ids as answer text: printable ASCII one for one; the end and special ids as nothing. */
final class TokenText {
    private TokenText() {
    }

    static String of(int id) {
        return id >= Tokens.FIRST_PRINTABLE && id <= Tokens.LAST_PRINTABLE ? String.valueOf((char) id) : "";
    }

    static String of(int[] ids) {
        StringBuilder b = new StringBuilder(ids.length);
        for (int id : ids) {
            b.append(of(id));
        }
        return b.toString();
    }
}
