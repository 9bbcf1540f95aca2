package org.mooncake.osgi.store.rpc.impl;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Who is at the other end of a TLS connection, as its certificate says (fixed at the handshake,
 * never taken from a request). The subject's CN names the principal; subject alternative names
 * of type URI carry the rest:
 * <ul>
 * <li>{@code mooncake:role:ROLE}, ROLE one of {@code admin}, {@code master}, {@code node},
 * {@code client} (several allowed; none means {@code client});</li>
 * <li>{@code mooncake:tenant:NAME}, one per tenant whose objects it may touch (none: no tenant).</li>
 * </ul>
 * Other alternative names (DNS, IP) are ignored.
 */
record PeerIdentity(String name, Set<Role> roles, Set<String> tenants) {
    static final String ROLE_PREFIX = "mooncake:role:";
    static final String TENANT_PREFIX = "mooncake:tenant:";
    private static final int SAN_URI = 6;

    enum Role {
        /** Every operation, any tenant, any client id. */
        ADMIN,
        /** The master's own certificate: what a client checks before it sends anything. */
        MASTER,
        /** A storage node: a client that may also mount segments. */
        NODE,
        /** Heartbeats and objects of its tenants; no segments. */
        CLIENT
    }

    PeerIdentity {
        roles = roles.isEmpty() ? Set.of(Role.CLIENT) : Set.copyOf(roles);
        tenants = Set.copyOf(tenants);
    }

    boolean is(Role role) {
        return roles.contains(role);
    }

    /**
     * The identity in a peer's certificate.
     *
     * @throws IllegalArgumentException for a certificate without a CN, an unknown role or a bad tenant name
     */
    static PeerIdentity of(X509Certificate cert) {
        String cn = commonName(cert.getSubjectX500Principal().getName());
        Set<Role> roles = EnumSet.noneOf(Role.class);
        Set<String> tenants = new TreeSet<>();
        try {
            var names = cert.getSubjectAlternativeNames();
            for (List<?> san : names == null ? List.<List<?>>of() : names) {
                if (san.size() < 2 || !(san.get(0) instanceof Integer type) || type != SAN_URI) {
                    continue;
                }
                String uri = String.valueOf(san.get(1));
                if (uri.startsWith(ROLE_PREFIX)) {
                    String role = uri.substring(ROLE_PREFIX.length());
                    try {
                        roles.add(Role.valueOf(role.toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("certificate of " + cn + ": unknown role " + role);
                    }
                } else if (uri.startsWith(TENANT_PREFIX)) {
                    String tenant = uri.substring(TENANT_PREFIX.length());
                    ObjectKey.validateTenant(tenant);
                    tenants.add(tenant);
                }
            }
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException("certificate of " + cn + ": unreadable alternative names: " + e);
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new IllegalArgumentException("certificate of " + cn + ": " + e.getMessage());
        }
        return new PeerIdentity(cn, roles, tenants);
    }

    private static String commonName(String dn) {
        try {
            for (Rdn rdn : new LdapName(dn).getRdns()) {
                if ("CN".equalsIgnoreCase(rdn.getType())) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            throw new IllegalArgumentException("unreadable certificate subject " + dn);
        }
        throw new IllegalArgumentException("certificate subject " + dn + " has no CN");
    }

    @Override
    public String toString() {
        return name + " " + roles + " tenants " + tenants;
    }
}
