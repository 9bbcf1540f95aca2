package org.mooncake.osgi.store.api;

/**
 * Error codes. Values from -1 to -1099 are numerically those of upstream Mooncake
 * ({@code mooncake-store/include/types.h}); values at or below -2000 are mooncake-osgi's own.
 */
public enum ErrorCode {
    OK(0),
    INTERNAL_ERROR(-1),
    BUFFER_OVERFLOW(-10),
    SEGMENT_NOT_FOUND(-101),
    SEGMENT_ALREADY_EXISTS(-102),
    NO_AVAILABLE_HANDLE(-200),
    INVALID_VERSION(-300),
    INVALID_KEY(-400),
    WRITE_FAIL(-500),
    INVALID_PARAMS(-600),
    INVALID_WRITE(-700),
    INVALID_READ(-701),
    INVALID_REPLICA(-702),
    REPLICA_IS_NOT_READY(-703),
    OBJECT_NOT_FOUND(-704),
    OBJECT_ALREADY_EXISTS(-705),
    OBJECT_HAS_LEASE(-706),
    LEASE_EXPIRED(-707),
    TRANSFER_FAIL(-800),
    RPC_FAIL(-900),
    UNAVAILABLE_IN_CURRENT_STATUS(-1010),
    CLIENT_NOT_FOUND(-1300),
    /** The bytes read do not match the checksum recorded at put. */
    CHECKSUM_MISMATCH(-2001),
    /** The object is larger than the buffer it is read into. */
    BUFFER_TOO_SMALL(-2002),
    /** Soft-pinned action or TTL outside the master's limits. */
    INVALID_TTL(-2003),
    /**
     * A put of the key is in progress: the object is being written and the key is taken until
     * that put ends or is revoked (OBJECT_ALREADY_EXISTS means a complete object holds it). Since 1.3.
     */
    OBJECT_BEING_WRITTEN(-2004),
    /**
     * The caller's identity (its certificate, over the master RPC's mutual TLS) may not make this
     * request: another tenant's key, another identity's client id, or an operation of a role it
     * does not hold. Nothing was changed. Since 1.5.
     */
    ACCESS_DENIED(-2005);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** The numeric code, as Mooncake reports it. */
    public int code() {
        return code;
    }

    /**
     * The error with this numeric code, or {@link #INTERNAL_ERROR} for a code this version does
     * not know: a newer master may report codes an older client has never heard of, and the
     * client must still fail that one call cleanly rather than throw something else (since 1.3;
     * it threw before).
     */
    public static ErrorCode ofCode(int code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return INTERNAL_ERROR;
    }

    /** Whether {@code code} is one of this version's codes (since 1.3). */
    public static boolean isKnown(int code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return true;
            }
        }
        return false;
    }
}
