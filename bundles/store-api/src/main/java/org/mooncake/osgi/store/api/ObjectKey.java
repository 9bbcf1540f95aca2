package org.mooncake.osgi.store.api;

/**
 * A key scoped by its tenant. Keys are 1 to {@value #MAX_KEY_BYTES} bytes of UTF-8 with no
 * control characters or whitespace; tenant names are 1 to {@value #MAX_TENANT_CHARS}
 * characters of {@code [A-Za-z0-9._-]}.
 */
public record ObjectKey(String tenant, String key) implements Comparable<ObjectKey> {
    public static final int MAX_KEY_BYTES = 1024;
    public static final int MAX_TENANT_CHARS = 64;
    public static final String DEFAULT_TENANT = "default";

    public ObjectKey {
        validateTenant(tenant);
        validateKey(key);
    }

    /** A key of the default tenant. */
    public static ObjectKey of(String key) {
        return new ObjectKey(DEFAULT_TENANT, key);
    }

    public static void validateKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new StoreException(ErrorCode.INVALID_KEY, "key is empty");
        }
        if (key.length() > MAX_KEY_BYTES) {
            throw new StoreException(ErrorCode.INVALID_KEY, "key longer than " + MAX_KEY_BYTES + " bytes");
        }
        // UTF-8 length counted in the same pass, not by encoding a copy: keys are checked on every call
        int utf8Bytes = 0;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x80 && c > ' ' && c != 0x7f) { // printable ASCII, the common case: no table look-ups
                utf8Bytes++;
                continue;
            }
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSurrogate(c)
                    && !validSurrogatePair(key, i)) {
                throw new StoreException(ErrorCode.INVALID_KEY,
                        "key has a control, whitespace or broken character at index " + i);
            }
            utf8Bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3; // a pair is 4
        }
        if (utf8Bytes > MAX_KEY_BYTES) {
            throw new StoreException(ErrorCode.INVALID_KEY, "key longer than " + MAX_KEY_BYTES + " bytes");
        }
    }

    private static boolean validSurrogatePair(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    public static void validateTenant(String tenant) {
        if (tenant == null || tenant.isEmpty() || tenant.length() > MAX_TENANT_CHARS) {
            throw new StoreException(ErrorCode.INVALID_PARAMS,
                    "tenant must have 1 to " + MAX_TENANT_CHARS + " characters");
        }
        for (int i = 0; i < tenant.length(); i++) {
            char c = tenant.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-';
            if (!ok) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "tenant may hold only [A-Za-z0-9._-]: " + tenant);
            }
        }
    }

    @Override
    public int compareTo(ObjectKey o) {
        int c = tenant.compareTo(o.tenant);
        return c != 0 ? c : key.compareTo(o.key);
    }

    @Override
    public String toString() {
        return DEFAULT_TENANT.equals(tenant) ? key : tenant + "/" + key;
    }
}
