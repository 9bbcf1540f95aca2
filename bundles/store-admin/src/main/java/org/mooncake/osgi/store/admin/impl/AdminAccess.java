package org.mooncake.osgi.store.admin.impl;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Who may read which admin endpoint, once callers must say who they are (a client certificate of
 * the cluster CA, or {@code Authorization: Bearer TOKEN} with a token of the token file):
 * <ul>
 * <li>{@code /health}: anyone (load balancers probe it);</li>
 * <li>{@code /query_key}: an admin, or a caller of the key's tenant;</li>
 * <li>{@code /stats?tenant=T}: an admin, or a caller of tenant T; {@code /stats} of the whole
 * store, {@code /metrics} and {@code /get_all_segments}: an admin.</li>
 * </ul>
 * No credential, or a token that is no token, is 401; a caller without the right is 403. Where
 * neither certificates nor tokens are configured ({@link #OPEN}: all-in-one on loopback), every
 * request is answered as before.
 */
record AdminAccess(boolean required, AdminTokens tokens) {
    /** Nobody is asked who they are. */
    static final AdminAccess OPEN = new AdminAccess(false, null);
    static final String BEARER = "Bearer ";

    /** Callers must identify themselves when {@code certificates} are required or tokens are configured. */
    static AdminAccess of(boolean certificates, AdminTokens tokens) {
        return certificates || tokens != null ? new AdminAccess(true, tokens) : OPEN;
    }

    /**
     * Null when the request may be answered, else the refusal to send.
     *
     * @param certificates  the client's certificate chain (its own first), null or empty without one
     * @param authorization the Authorization header, null without one
     */
    Answer refusal(String endpoint, Map<String, List<String>> query, X509Certificate[] certificates,
            String authorization) {
        if (!required || AdminEndpoints.HEALTH.equals(endpoint)) {
            return null;
        }
        AdminCaller who;
        if (authorization != null) {
            if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                return unauthorized("only Authorization: Bearer TOKEN is understood");
            }
            if (tokens == null) {
                return unauthorized("this endpoint takes no bearer tokens (auth.tokens.file is not set)");
            }
            who = tokens.identify(authorization.substring(BEARER.length()).strip());
            if (who == null) {
                return unauthorized("unknown access token");
            }
        } else if (certificates != null && certificates.length > 0) {
            try {
                who = AdminCaller.of(certificates[0]);
            } catch (IllegalArgumentException e) {
                return Answer.error(403, ErrorCode.ACCESS_DENIED, "refused a client certificate: " + e.getMessage());
            }
        } else {
            return unauthorized("/" + endpoint + " needs a client certificate of the cluster CA"
                    + (tokens != null ? " or Authorization: Bearer TOKEN" : ""));
        }
        String need = needed(endpoint, query);
        if (need == null ? who.admin() : who.mayUse(need)) {
            return null;
        }
        return Answer.error(403, ErrorCode.ACCESS_DENIED, who.name() + " may not read /" + endpoint
                + (need == null ? ": it needs the admin role" : " of tenant " + need));
    }

    /** The tenant whose caller may read {@code endpoint} with {@code query}; null: only an admin. */
    private static String needed(String endpoint, Map<String, List<String>> query) {
        return switch (endpoint) {
            case AdminEndpoints.QUERY_KEY -> {
                String t = Query.single(query, "tenant");
                yield t == null ? ObjectKey.DEFAULT_TENANT : t;
            }
            case AdminEndpoints.STATS -> Query.single(query, "tenant");
            default -> null;
        };
    }

    private static Answer unauthorized(String why) {
        return Answer.error(401, ErrorCode.ACCESS_DENIED, why);
    }
}
