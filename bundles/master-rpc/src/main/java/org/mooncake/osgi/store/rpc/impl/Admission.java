package org.mooncake.osgi.store.rpc.impl;

import org.mooncake.osgi.store.master.MasterService;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Who one connection is, settled at its {@code HELLO}: the identity of a token given as HELLO's
 * second argument, else that of its client certificate, else nobody. Nobody is served only where
 * neither TLS nor tokens are configured ({@code tls.insecure}); with tokens configured a
 * connection without a certificate must present one. An identity is admitted while it holds fewer
 * than {@link ConnectionQuota#perIdentity} connections, and counted until {@link #close}.
 */
final class Admission implements AutoCloseable {
    private final PeerIdentity certified;
    private final AccessTokens tokens;
    private final ConnectionQuota quota;
    private PeerIdentity admitted;

    /**
     * @param certified the client certificate's identity, null in plain text
     * @param tokens    the configured tokens, null when none are
     */
    Admission(PeerIdentity certified, AccessTokens tokens, ConnectionQuota quota) {
        this.certified = certified;
        this.tokens = tokens;
        this.quota = quota;
    }

    /**
     * Admits the connection whose HELLO carried {@code helloArgs} (already checked for its
     * version), or refuses it with ACCESS_DENIED saying why.
     */
    void admit(JsonNode helloArgs) {
        JsonNode token = helloArgs != null && helloArgs.isArray() && helloArgs.size() > 1 ? helloArgs.get(1) : null;
        PeerIdentity who;
        if (token != null && !token.isNull()) {
            if (!token.isTextual()) {
                throw new AccessDenied("HELLO's second argument, the access token, must be a text string");
            }
            if (tokens == null) {
                throw new AccessDenied("this master takes no access tokens (auth.tokens.file is not set)");
            }
            who = tokens.identify(token.asText());
            if (who == null) {
                throw new AccessDenied("unknown access token");
            }
        } else if (certified != null) {
            who = certified;
        } else if (tokens != null) {
            throw new AccessDenied("this master needs an access token (HELLO's second argument) or a client "
                    + "certificate");
        } else {
            return; // neither TLS nor tokens: tls.insecure, served as anyone
        }
        if (!quota.acquire(who.name())) {
            throw new AccessDenied(who.name() + " already holds " + quota.perIdentity()
                    + " connections to this master (max.connections.per.identity); close one, or give each "
                    + "process its own certificate or token");
        }
        admitted = who;
    }

    /** The master as this connection may use it: guarded by its identity, or the master itself without one. */
    MasterService master(MasterService master, ClientIdOwners owners) {
        return admitted == null ? master : new GuardedMaster(master, admitted, owners);
    }

    /** The admitted identity, null when none (tests, logs). */
    PeerIdentity identity() {
        return admitted;
    }

    @Override
    public void close() {
        if (admitted != null) {
            quota.release(admitted.name());
            admitted = null;
        }
    }
}
