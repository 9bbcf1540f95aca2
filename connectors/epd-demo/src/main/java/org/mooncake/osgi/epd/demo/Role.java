package org.mooncake.osgi.epd.demo;

import java.util.Locale;

/** The processes of the demo's cluster, each started from a profile of the distribution. */
public enum Role {
    MASTER("master", "the master"),
    STORAGE("storage", "the storage node"),
    ENCODER("epd-encoder", "the encoder"),
    PREFILL("epd-prefill", "the prefill worker"),
    DECODE("epd-decode", "the decode worker"),
    AGGREGATED("epd-aggregated", "the aggregated worker"),
    PROXY("epd-proxy", "the EPD proxy");

    private final String profile;
    private final String description;

    Role(String profile, String description) {
        this.profile = profile;
        this.description = description;
    }

    public String profile() {
        return profile;
    }

    /** Short lower-case name: log file, instance suffix, report column. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String description() {
        return description;
    }

    /** Whether the process serves the EPD worker API (chat, /epd/probe, the worker counters). */
    public boolean worker() {
        return this == ENCODER || this == PREFILL || this == DECODE || this == AGGREGATED;
    }
}
