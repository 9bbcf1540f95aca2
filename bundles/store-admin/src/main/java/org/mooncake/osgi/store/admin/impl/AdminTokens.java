package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The access-token file the master RPC reads too ({@code auth.tokens.file}; docs/security.md):
 * lines {@code TOKEN tenant=NAME[,NAME...] role=client|node|admin[,...] [name=PRINCIPAL]},
 * {@code #} comments. A caller presents its token as {@code Authorization: Bearer TOKEN}. Only
 * SHA-256 digests are kept, and a presented token is compared with every one in constant time.
 */
final class AdminTokens {
    static final int MIN_TOKEN_CHARS = 16;

    private record Entry(byte[] digest, AdminCaller who) {
    }

    private final List<Entry> entries;

    private AdminTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The tokens of {@code file}; an IllegalArgumentException names the file and line (never the token). */
    static AdminTokens read(Path file) {
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + e, e);
        }
    }

    static AdminTokens parse(List<String> lines, String source) {
        List<Entry> entries = new ArrayList<>();
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
            entries.add(e);
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(source + ": no tokens (lines 'TOKEN tenant=NAME role=client|admin')");
        }
        return new AdminTokens(entries);
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
        boolean admin = false;
        Set<String> tenants = new TreeSet<>();
        for (int f = 1; f < fields.length; f++) {
            int eq = fields[f].indexOf('=');
            String key = eq < 0 ? fields[f] : fields[f].substring(0, eq);
            String value = eq < 0 ? "" : fields[f].substring(eq + 1);
            switch (key) {
                case "name" -> name = value;
                case "tenant" -> {
                    for (String t : value.split(",")) {
                        tenants.add(AdminCaller.tenant(t, at));
                    }
                }
                case "role" -> {
                    for (String r : value.split(",")) {
                        String role = r.toLowerCase(Locale.ROOT);
                        if (!AdminCaller.ROLES.contains(role) || role.equals("master")) {
                            throw new IllegalArgumentException(at + ": role '" + r + "' is none of client, node, admin");
                        }
                        admin |= role.equals("admin");
                    }
                }
                default -> throw new IllegalArgumentException(at + ": unknown field '" + key
                        + "' (known: tenant=, role=, name=)");
            }
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException(at + ": name= needs a value");
        }
        return new Entry(digest(token), new AdminCaller(name, admin, tenants));
    }

    /** The caller of {@code presented}, or null; every digest is compared, in constant time each. */
    AdminCaller identify(String presented) {
        byte[] d = digest(presented);
        AdminCaller found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest, d)) {
                found = e.who;
            }
        }
        return found;
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The same tokens with the same callers: what tells a changed file from a re-read one. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AdminTokens t) || t.entries.size() != entries.size()) {
            return false;
        }
        for (int i = 0; i < entries.size(); i++) {
            if (!MessageDigest.isEqual(entries.get(i).digest, t.entries.get(i).digest)
                    || !entries.get(i).who.equals(t.entries.get(i).who)) {
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
