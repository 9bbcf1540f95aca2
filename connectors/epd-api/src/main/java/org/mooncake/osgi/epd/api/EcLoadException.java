package org.mooncake.osgi.epd.api;

import java.util.Map;

/**
 * Hidden states that could not be loaded, with why, when the connector is set to report a failed
 * load rather than recompute it: the request fails and nothing it would have read was used.
 */
public class EcLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Map<String, String> failed;

    public EcLoadException(Map<String, String> failed) {
        super("hidden states could not be loaded: " + failed);
        this.failed = Map.copyOf(failed);
    }

    /** Item id -> why. */
    public Map<String, String> failed() {
        return failed;
    }
}
