package org.mooncake.osgi.epd.demo;

import com.fasterxml.jackson.databind.JsonNode;

/** The answer of a worker's {@code /epd/probe}: plain store puts, then gets, of the same objects. */
public record ProbeResult(Figure put, Figure get) {

    /** {@code objects} of {@code bytes} in total, moved in {@code seconds}. */
    public record Figure(long objects, long bytes, double seconds, double mibPerS) {
        static Figure of(JsonNode n) {
            long bytes = n.path("bytes").asLong();
            double seconds = n.path("seconds").asDouble();
            double rate = n.has("mib_per_s") ? n.path("mib_per_s").asDouble()
                    : seconds > 0 ? bytes / seconds / (1 << 20) : 0;
            return new Figure(n.path("objects").asLong(), bytes, seconds, rate);
        }
    }
}
