package org.mooncake.osgi.store.console.impl;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Whether the address Felix HTTP binds (framework property {@value #HOST_PROPERTY}) keeps the
 * console on this machine. No value means every interface; a name that does not resolve is taken
 * as exposed, so an unknown answer never loosens the login.
 */
final class BindAddress {
    static final String HOST_PROPERTY = "org.apache.felix.http.host";

    private BindAddress() {
    }

    /** True when every address {@code host} names is a loopback address. */
    static boolean isLoopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(host.strip())) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** How an operator reads the bind in a log line. */
    static String describe(String host) {
        return host == null || host.isBlank() ? "every interface (" + HOST_PROPERTY + " is not set)"
                : host.strip() + " (" + HOST_PROPERTY + ")";
    }
}
