package org.mooncake.osgi.store.rpc.impl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Shared-secret tokens, the alternative to client certificates an operator may choose: a file of
 * lines {@code TOKEN tenant=NAME[,NAME...] role=client|node|admin[,...] [name=PRINCIPAL]}
 * ({@code #} starts a comment line; {@code tenant} and {@code role} may also be repeated). A
 * client presents its token as the second argument of {@code HELLO}; the token's identity then
 * plays the part a certificate's would ({@link PeerIdentity}: no role means {@code client}, no
 * tenant means none). Its principal, which owns client ids and counts connections, is
 * {@code name} or else {@code token@LINE}.
 * <p>
 * Only SHA-256 digests of the tokens are kept, and a presented token is compared with every
 * digest in constant time ({@link MessageDigest#isEqual}), so neither timing nor a heap dump
 * gives a token away. A token is at least {@value #MIN_TOKEN_CHARS} characters without
 * whitespace ({@code openssl rand -hex 32} makes a good one).
 */
final class AccessTokens {
    static final int MIN_TOKEN_CHARS = 16;

    private record Entry(byte[] digest, PeerIdentity who) {
    }

    private final List<Entry> entries;

    private AccessTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * The tokens in {@code file}.
     *
     * @throws IllegalArgumentException naming the file and line of what is wrong (never the token)
     */
    static AccessTokens read(Path file) {
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + e, e);
        }
    }

    /** The tokens in {@code lines}, read from {@code source} (named in errors). */
    static AccessTokens parse(List<String> lines, String source) {
        List<Entry> entries = new ArrayList<>();
        Set<String> principals = new TreeSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String at = source + ":" + (i + 1);
            Entry e = entry(line.split("\\s+"), i + 1, at);
            for (Entry other : entries) {
                if (MessageDigest.isEqual(other.digest, e.digest)) {
                    throw new IllegalArgumentException(at + ": the same token as " + other.who.name());
                }
            }
            if (!principals.add(e.who.name())) {
                throw new IllegalArgumentException(at + ": name " + e.who.name() + " is given twice");
            }
            entries.add(e);
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(source + ": no tokens (lines 'TOKEN tenant=NAME role=client|admin')");
        }
        return new AccessTokens(entries);
    }

    private static Entry entry(String[] fields, int lineNumber, String at) {
        String token = fields[0];
        if (token.contains("=")) {
            throw new IllegalArgumentException(at + ": a line starts with the token, then tenant=, role=, name=");
        }
        if (token.length() < MIN_TOKEN_CHARS) {
            throw new IllegalArgumentException(at + ": a token needs at least " + MIN_TOKEN_CHARS + " characters");
        }
        String name = "token@" + lineNumber;
        Set<PeerIdentity.Role> roles = EnumSet.noneOf(PeerIdentity.Role.class);
        Set<String> tenants = new TreeSet<>();
        for (int f = 1; f < fields.length; f++) {
            int eq = fields[f].indexOf('=');
            String key = eq < 0 ? fields[f] : fields[f].substring(0, eq);
            String value = eq < 0 ? "" : fields[f].substring(eq + 1);
            switch (key) {
                case "name" -> name = value;
                case "tenant" -> {
                    for (String t : value.split(",")) {
                        try {
                            ObjectKey.validateTenant(t);
                        } catch (RuntimeException e) {
                            throw new IllegalArgumentException(at + ": tenant '" + t + "': " + e.getMessage());
                        }
                        tenants.add(t);
                    }
                }
                case "role" -> {
                    for (String r : value.split(",")) {
                        roles.add(role(r, at));
                    }
                }
                default -> throw new IllegalArgumentException(at + ": unknown field '" + key
                        + "' (known: tenant=, role=, name=)");
            }
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException(at + ": name= needs a value");
        }
        return new Entry(digest(token), new PeerIdentity(name, roles, tenants));
    }

    private static PeerIdentity.Role role(String r, String at) {
        try {
            PeerIdentity.Role role = PeerIdentity.Role.valueOf(r.toUpperCase(Locale.ROOT));
            if (role != PeerIdentity.Role.MASTER) {
                return role;
            }
        } catch (IllegalArgumentException e) {
            // named below
        }
        throw new IllegalArgumentException(at + ": role '" + r + "' is none of client, node, admin");
    }

    /**
     * The identity of {@code presented}, or null when no token matches. Every digest is compared,
     * in constant time each, whether or not an earlier one matched.
     */
    PeerIdentity identify(String presented) {
        byte[] d = digest(presented);
        PeerIdentity found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest, d)) {
                found = e.who;
            }
        }
        return found;
    }

    int size() {
        return entries.size();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The same tokens with the same identities: what tells a changed file from a re-read one. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AccessTokens t) || t.entries.size() != entries.size()) {
            return false;
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry a = entries.get(i);
            Entry b = t.entries.get(i);
            if (!MessageDigest.isEqual(a.digest, b.digest) || !a.who.equals(b.who)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return entries.size();
    }

    @Override
    public String toString() {
        return entries.size() + " token(s)";
    }
}
