package org.mooncake.osgi.store.admin.impl;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Who asks an admin endpoint, by the same rules as the master RPC's identities: a client
 * certificate's subject CN names it; subject-alternative-name URIs {@code mooncake:role:ROLE}
 * (admin, master, node or client) and {@code mooncake:tenant:NAME} say what it may see. Or the
 * line of an access token ({@link AdminTokens}). Only {@code admin} matters here: an admin sees
 * everything, anyone else its tenants' objects and figures.
 */
record AdminCaller(String name, boolean admin, Set<String> tenants) {
    static final String ROLE_PREFIX = "mooncake:role:";
    static final String TENANT_PREFIX = "mooncake:tenant:";
    static final Set<String> ROLES = Set.of("admin", "master", "node", "client");
    private static final int SAN_URI = 6;

    AdminCaller {
        tenants = Set.copyOf(tenants);
    }

    /** Whether this caller may see objects and figures of {@code tenant}. */
    boolean mayUse(String tenant) {
        return admin || tenants.contains(tenant);
    }

    /**
     * The caller a certificate names.
     *
     * @throws IllegalArgumentException for a certificate without a CN, with an unknown role or a bad tenant name
     */
    static AdminCaller of(X509Certificate cert) {
        String cn = commonName(cert.getSubjectX500Principal().getName());
        boolean admin = false;
        Set<String> tenants = new TreeSet<>();
        List<List<?>> names;
        try {
            var sans = cert.getSubjectAlternativeNames();
            names = sans == null ? List.of() : List.copyOf(sans);
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException("certificate of " + cn + ": unreadable alternative names: " + e);
        }
        for (List<?> san : names) {
            if (san.size() < 2 || !(san.get(0) instanceof Integer type) || type != SAN_URI) {
                continue;
            }
            String uri = String.valueOf(san.get(1));
            if (uri.startsWith(ROLE_PREFIX)) {
                String role = uri.substring(ROLE_PREFIX.length()).toLowerCase(Locale.ROOT);
                if (!ROLES.contains(role)) {
                    throw new IllegalArgumentException("certificate of " + cn + ": unknown role " + role);
                }
                admin |= role.equals("admin");
            } else if (uri.startsWith(TENANT_PREFIX)) {
                tenants.add(tenant(uri.substring(TENANT_PREFIX.length()), "certificate of " + cn));
            }
        }
        return new AdminCaller(cn, admin, tenants);
    }

    /** A valid tenant name, or an IllegalArgumentException saying whose it was. */
    static String tenant(String name, String whose) {
        try {
            ObjectKey.validateTenant(name);
            return name;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(whose + ": tenant '" + name + "': " + e.getMessage());
        }
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
}
