package org.mooncake.osgi.epd.api;

/** Element types of a stored tensor, with the codes of the Mooncake tensor object header. */
public enum DType {
    F32(0, 4),
    F64(1, 8),
    I8(2, 1),
    U8(3, 1),
    I16(4, 2),
    U16(5, 2),
    I32(6, 4),
    U32(7, 4),
    I64(8, 8),
    U64(9, 8),
    BOOL(10, 1),
    F16(11, 2),
    BF16(12, 2),
    FP8_E4M3FN(13, 1),
    FP8_E5M2(14, 1);

    private final int code;
    private final int bytes;

    DType(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The header's dtype code. */
    public int code() {
        return code;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** The type with this header code; IllegalArgumentException for a code this version does not know. */
    public static DType ofCode(int code) {
        for (DType d : values()) {
            if (d.code == code) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype code " + code);
    }

    /** Lower-case name as keys spell it: {@code f32}, {@code bf16}, {@code fp8_e4m3fn}. */
    public String keyName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
