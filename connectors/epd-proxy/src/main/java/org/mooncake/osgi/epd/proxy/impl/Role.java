package org.mooncake.osgi.epd.proxy.impl;

import java.util.Locale;

/** What a worker instance does in the EPD pipeline; {@link #wire} is its name in JSON and labels. */
enum Role {
    ENCODE("encode"), PREFILL("prefill"), DECODE("decode");

    final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    /** The role named {@code text} ({@code encode}, {@code prefill}, {@code decode}); IllegalArgumentException otherwise. */
    static Role parse(String text) {
        if (text != null) {
            for (Role r : values()) {
                if (r.wire.equals(text.trim().toLowerCase(Locale.ROOT))) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("role must be one of encode, prefill, decode; was " + text);
    }
}
