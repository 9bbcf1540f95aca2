package org.mooncake.osgi.store.api;

/** What an object holds; codes are Mooncake's {@code ObjectDataType} (uint8). */
public enum ObjectDataType {
    UNKNOWN(0),
    KVCACHE(1),
    TENSOR(2),
    WEIGHT(3),
    SAMPLE(4),
    ACTIVATION(5),
    GRADIENT(6),
    OPTIMIZER_STATE(7),
    METADATA(8),
    GENERAL(9),
    HIDDEN_STATE(10);

    private static final ObjectDataType[] BY_CODE = new ObjectDataType[HIDDEN_STATE.code + 1];

    static {
        for (ObjectDataType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    ObjectDataType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type with this code; codes 11-255 are reserved upstream and rejected. */
    public static ObjectDataType ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new StoreException(ErrorCode.INVALID_PARAMS,
                    "unknown data type code " + code + " (known: 0-" + HIDDEN_STATE.code + ")");
        }
        return BY_CODE[code];
    }

    /** The type named (case-insensitive) or with this numeric code. */
    public static ObjectDataType parse(String nameOrCode) {
        StoreException.require(nameOrCode != null && !nameOrCode.isBlank(), "data type is empty");
        String s = nameOrCode.trim();
        if (Character.isDigit(s.charAt(0))) {
            try {
                return ofCode(Integer.parseInt(s));
            } catch (NumberFormatException e) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "unknown data type " + s);
            }
        }
        for (ObjectDataType t : values()) {
            if (t.name().equalsIgnoreCase(s)) {
                return t;
            }
        }
        throw new StoreException(ErrorCode.INVALID_PARAMS, "unknown data type " + s);
    }
}
