package org.mooncake.osgi.epd.proxy.impl;

import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/** Request ids: the client's {@code X-Request-Id} when usable, else {@code chatcmpl-<random>}; child ids for encodes. */
final class RequestIds {
    /** Visible ASCII, no spaces, at most 256 characters: safe in a header and in workers' logs. */
    private static final Pattern USABLE = Pattern.compile("[\\x21-\\x7e]{1,256}");

    private RequestIds() {
    }

    /** The client's id if usable, else a new one. */
    static String accept(String fromClient) {
        if (fromClient != null && USABLE.matcher(fromClient.strip()).matches()) {
            return fromClient.strip();
        }
        return "chatcmpl-" + UUID.randomUUID().toString().replace("-", "");
    }

    /** The id of media item {@code index}'s encode attempt: {@code {req}:{index}:{random}}. */
    static String child(String requestId, int index) {
        return requestId + ":" + index + ":" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    }
}
