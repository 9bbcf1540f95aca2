/*
 * Copy and checksum in one pass: XXH3-64 (seed 0, default secret) of the bytes as they are
 * copied, each 64-byte stripe loaded once, stored to the destination and folded into the hash.
 * With dst NULL the same code only hashes.
 *
 * Why XXH3 and not CRC32C (the store's checksum until 2.0): CRC32C's fold is bound by carry-less
 * multiplies. On our Zen 4 VM a 64 KiB copy with its CRC32C in one pass took 1.25 µs, 1.9x
 * memcpy, against 1.15-1.2x for this accumulate; RocksDB made the same change for the same reason.
 *
 * The algorithm is the one specified by xxHash 0.8 (XXH3_64bits); the tests compare with vectors
 * from the reference library. Inputs up to 240 bytes take the short paths, in scalar code. Longer
 * ones go in 1,024-byte blocks of 16 stripes, each block followed by a scramble; the last partial
 * block's stripes and one stripe ending at the input's end close it. A long input may be fed in
 * pieces (Java calls in pieces, so the garbage collector is not held off for long): every piece
 * but the last is whole blocks (mc_copy_xxh3_blocks), the last ends the hash (mc_copy_xxh3_last).
 *
 * mc_copy_kernel() says which lanes this CPU runs (2: AVX-512, 1: AVX2, 3: NEON on aarch64, 0: none,
 * where the caller must not call in and copies in Java); mc_copy_kernel_limit(1) keeps an x86 CPU
 * to AVX2. Built by the store-memory pom for x86-64 and aarch64 (little-endian only: the reads below
 * are the hash's little-endian words), wherever it finds gcc or a cross gcc for either.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <arm_neon.h>
#else
#error "the copy kernel is written for x86-64 and little-endian aarch64"
#endif

#define STRIPE 64
#define STRIPES_PER_BLOCK 16 /* (secret size 192 - 64) / 8 */
#define BLOCK (STRIPE * STRIPES_PER_BLOCK)
#define SCRAMBLE_KEY 128 /* secret size - 64 */
#define LAST_STRIPE_KEY 121 /* secret size - 64 - 7 */
#define MERGE_KEY 11

static const uint64_t P32_1 = 0x9E3779B1u, P32_2 = 0x85EBCA77u, P32_3 = 0xC2B2AE3Du;
static const uint64_t P64_1 = 0x9E3779B185EBCA87ull, P64_2 = 0xC2B2AE3D27D4EB4Full, P64_3 = 0x165667B19E3779F9ull,
        P64_4 = 0x85EBCA77C2B2AE63ull, P64_5 = 0x27D4EB2F165667C5ull;

/* The default secret of XXH3, part of its definition. */
static const uint8_t SECRET[192] __attribute__((aligned(64))) = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

static int kernel;

__attribute__((constructor)) static void pick_kernel(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    kernel = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    kernel = 3; /* Advanced SIMD is part of every AArch64 CPU */
#endif
}

int mc_copy_kernel(void) {
    return kernel;
}

/* Lowers the width an x86 instance uses to at most max (1: AVX2; an operator's choice, and tests). */
int mc_copy_kernel_limit(int max) {
    if (kernel != 3 && kernel > max) {
        kernel = max;
    }
    return kernel;
}

/* Little-endian reads (see the #error above). */
static inline uint64_t read64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t read32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t mul128_fold64(uint64_t a, uint64_t b) {
    __uint128_t p = (__uint128_t) a * b;
    return (uint64_t) p ^ (uint64_t) (p >> 64);
}

static inline uint64_t rotl64(uint64_t v, int r) {
    return (v << r) | (v >> (64 - r));
}

static uint64_t xxh64_avalanche(uint64_t h) {
    h ^= h >> 33;
    h *= P64_2;
    h ^= h >> 29;
    h *= P64_3;
    return h ^ (h >> 32);
}

static uint64_t avalanche(uint64_t h) {
    h ^= h >> 37;
    h *= 0x165667919E3779F9ull;
    return h ^ (h >> 32);
}

static uint64_t rrmxmx(uint64_t h, uint64_t len) {
    h ^= rotl64(h, 49) ^ rotl64(h, 24);
    h *= 0x9FB21C651E98DF25ull;
    h ^= (h >> 35) + len;
    h *= 0x9FB21C651E98DF25ull;
    return h ^ (h >> 28);
}

static inline uint64_t mix16(const uint8_t *in, const uint8_t *key) {
    return mul128_fold64(read64(in) ^ read64(key), read64(in + 8) ^ read64(key + 8));
}

/* XXH3 of inputs of at most 240 bytes. */
static uint64_t hash_short(const uint8_t *in, size_t len) {
    if (len == 0) {
        return xxh64_avalanche(read64(SECRET + 56) ^ read64(SECRET + 64));
    }
    if (len <= 3) {
        uint32_t combined = ((uint32_t) in[0] << 16) | ((uint32_t) in[len >> 1] << 24) | in[len - 1]
                | ((uint32_t) len << 8);
        return xxh64_avalanche(combined ^ (uint64_t) (read32(SECRET) ^ read32(SECRET + 4)));
    }
    if (len <= 8) {
        uint64_t joined = read32(in + len - 4) + ((uint64_t) read32(in) << 32);
        return rrmxmx(joined ^ (read64(SECRET + 8) ^ read64(SECRET + 16)), len);
    }
    if (len <= 16) {
        uint64_t lo = read64(in) ^ (read64(SECRET + 24) ^ read64(SECRET + 32));
        uint64_t hi = read64(in + len - 8) ^ (read64(SECRET + 40) ^ read64(SECRET + 48));
        return avalanche(len + __builtin_bswap64(lo) + hi + mul128_fold64(lo, hi));
    }
    uint64_t acc = len * P64_1;
    if (len <= 128) {
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += mix16(in + 48, SECRET + 96) + mix16(in + len - 64, SECRET + 112);
                }
                acc += mix16(in + 32, SECRET + 64) + mix16(in + len - 48, SECRET + 80);
            }
            acc += mix16(in + 16, SECRET + 32) + mix16(in + len - 32, SECRET + 48);
        }
        return avalanche(acc + mix16(in, SECRET) + mix16(in + len - 16, SECRET + 16));
    }
    for (int i = 0; i < 8; i++) {
        acc += mix16(in + 16 * i, SECRET + 16 * i);
    }
    acc = avalanche(acc);
    for (size_t i = 8; i < len / 16; i++) {
        acc += mix16(in + 16 * i, SECRET + 16 * (i - 8) + 3);
    }
    return avalanche(acc + mix16(in + len - 16, SECRET + 136 - 17));
}

static uint64_t merge(const uint64_t acc[8], uint64_t total) {
    uint64_t r = total * P64_1;
    for (int i = 0; i < 4; i++) {
        r += mul128_fold64(acc[2 * i] ^ read64(SECRET + MERGE_KEY + 16 * i), acc[2 * i + 1] ^ read64(SECRET + MERGE_KEY + 16 * i + 8));
    }
    return avalanche(r);
}

/*
 * The stripe loops, once per vector width and once with and once without the copy (copy is a
 * constant where these are inlined). Each folds n stripes from src into acc, stripe s keyed from
 * SECRET + key + 8 s, and scrambles after them if asked.
 */
#if defined(__x86_64__)
__attribute__((target("avx512f"), always_inline))
static inline __m512i stripes512(__m512i acc, uint8_t *dst, const uint8_t *src, size_t n, const __m512i *keys, int copy) {
    /* acc[i ^ 1] += data[i] is a lane swap of the summed data: one swap per call, not per stripe */
    __m512i data = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (size_t s = 0; s < n; s++) {
        __m512i d = _mm512_loadu_si512(src + STRIPE * s);
        if (copy) {
            _mm512_storeu_si512(dst + STRIPE * s, d);
        }
        __m512i k = _mm512_xor_si512(d, keys[s]);
        acc = _mm512_add_epi64(acc, _mm512_mul_epu32(k, _mm512_srli_epi64(k, 32)));
        data = _mm512_add_epi64(data, d);
    }
    return _mm512_add_epi64(acc, _mm512_shuffle_epi32(data, (_MM_PERM_ENUM) 0x4E));
}

__attribute__((target("avx512f")))
static inline __m512i scramble512(__m512i acc) {
    acc = _mm512_xor_si512(_mm512_xor_si512(acc, _mm512_srli_epi64(acc, 47)), _mm512_loadu_si512(SECRET + SCRAMBLE_KEY));
    __m512i prime = _mm512_set1_epi64((long long) P32_1);
    __m512i lo = _mm512_mul_epu32(acc, prime), hi = _mm512_mul_epu32(_mm512_srli_epi64(acc, 32), prime);
    return _mm512_add_epi64(lo, _mm512_slli_epi64(hi, 32));
}

/* Whole blocks, then (if last) the partial block, the final stripe and the merge. */
__attribute__((target("avx512f"), always_inline))
static inline uint64_t run512(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last,
        int copy) {
    __m512i acc = _mm512_loadu_si512(state), keys[STRIPES_PER_BLOCK], last_key = _mm512_loadu_si512(SECRET + LAST_STRIPE_KEY);
    for (int s = 0; s < STRIPES_PER_BLOCK; s++) {
        keys[s] = _mm512_loadu_si512(SECRET + 8 * s);
    }
    size_t blocks = last ? (len - 1) / BLOCK : len / BLOCK;
    for (size_t b = 0; b < blocks; b++) {
        acc = scramble512(stripes512(acc, dst + b * BLOCK, src + b * BLOCK, STRIPES_PER_BLOCK, keys, copy));
    }
    if (!last) {
        _mm512_storeu_si512(state, acc);
        return 0;
    }
    size_t off = blocks * BLOCK, n = (len - 1 - off) / STRIPE;
    acc = stripes512(acc, dst + off, src + off, n, keys, copy);
    off += n * STRIPE;
    if (copy) {
        memcpy(dst + off, src + off, len - off);
    }
    /* the final stripe overlaps bytes already folded in: read where they landed, as the others were */
    acc = stripes512(acc, NULL, (copy ? dst : src) + len - STRIPE, 1, &last_key, 0);
    uint64_t out[8];
    _mm512_storeu_si512(out, acc);
    return merge(out, total);
}

__attribute__((target("avx2"), always_inline))
static inline void stripes256(__m256i acc[2], uint8_t *dst, const uint8_t *src, size_t n, const uint8_t *key, int copy) {
    __m256i data[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()}; /* swapped once, as in stripes512 */
    for (size_t s = 0; s < n; s++) {
        for (int h = 0; h < 2; h++) {
            __m256i d = _mm256_loadu_si256((const __m256i *) (src + STRIPE * s + 32 * h));
            if (copy) {
                _mm256_storeu_si256((__m256i *) (dst + STRIPE * s + 32 * h), d);
            }
            __m256i k = _mm256_xor_si256(d, _mm256_loadu_si256((const __m256i *) (key + 8 * s + 32 * h)));
            acc[h] = _mm256_add_epi64(acc[h], _mm256_mul_epu32(k, _mm256_srli_epi64(k, 32)));
            data[h] = _mm256_add_epi64(data[h], d);
        }
    }
    for (int h = 0; h < 2; h++) {
        acc[h] = _mm256_add_epi64(acc[h], _mm256_shuffle_epi32(data[h], 0x4E));
    }
}

__attribute__((target("avx2")))
static inline void scramble256(__m256i acc[2]) {
    __m256i prime = _mm256_set1_epi64x((long long) P32_1);
    for (int h = 0; h < 2; h++) {
        __m256i a = _mm256_xor_si256(_mm256_xor_si256(acc[h], _mm256_srli_epi64(acc[h], 47)),
                _mm256_loadu_si256((const __m256i *) (SECRET + SCRAMBLE_KEY + 32 * h)));
        __m256i lo = _mm256_mul_epu32(a, prime), hi = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), prime);
        acc[h] = _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
    }
}

__attribute__((target("avx2"), always_inline))
static inline uint64_t run256(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last,
        int copy) {
    __m256i acc[2] = {_mm256_loadu_si256((const __m256i *) state), _mm256_loadu_si256((const __m256i *) (state + 4))};
    size_t blocks = last ? (len - 1) / BLOCK : len / BLOCK;
    for (size_t b = 0; b < blocks; b++) {
        stripes256(acc, dst + b * BLOCK, src + b * BLOCK, STRIPES_PER_BLOCK, SECRET, copy);
        scramble256(acc);
    }
    if (!last) {
        _mm256_storeu_si256((__m256i *) state, acc[0]);
        _mm256_storeu_si256((__m256i *) (state + 4), acc[1]);
        return 0;
    }
    size_t off = blocks * BLOCK, n = (len - 1 - off) / STRIPE;
    stripes256(acc, dst + off, src + off, n, SECRET, copy);
    off += n * STRIPE;
    if (copy) {
        memcpy(dst + off, src + off, len - off);
    }
    stripes256(acc, NULL, (copy ? dst : src) + len - STRIPE, 1, SECRET + LAST_STRIPE_KEY, 0);
    uint64_t out[8];
    _mm256_storeu_si256((__m256i *) out, acc[0]);
    _mm256_storeu_si256((__m256i *) (out + 4), acc[1]);
    return merge(out, total);
}

__attribute__((target("avx512f")))
static uint64_t run512_copy(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last) {
    return run512(state, dst, src, len, total, last, 1);
}

__attribute__((target("avx512f")))
static uint64_t run512_hash(uint64_t *state, const uint8_t *src, size_t len, uint64_t total, int last) {
    return run512(state, NULL, src, len, total, last, 0);
}

__attribute__((target("avx2")))
static uint64_t run256_copy(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last) {
    return run256(state, dst, src, len, total, last, 1);
}

__attribute__((target("avx2")))
static uint64_t run256_hash(uint64_t *state, const uint8_t *src, size_t len, uint64_t total, int last) {
    return run256(state, NULL, src, len, total, last, 0);
}

static uint64_t run(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last) {
    if (kernel == 2) {
        return dst ? run512_copy(state, dst, src, len, total, last) : run512_hash(state, src, len, total, last);
    }
    return dst ? run256_copy(state, dst, src, len, total, last) : run256_hash(state, src, len, total, last);
}

#else /* aarch64 */

/* The NEON lanes: a stripe is four 128-bit vectors; as on x86, the data is summed and swapped once per call. */
__attribute__((always_inline))
static inline void stripes128(uint64x2_t acc[4], uint8_t *dst, const uint8_t *src, size_t n, const uint8_t *key, int copy) {
    uint64x2_t data[4] = {vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0)};
    for (size_t s = 0; s < n; s++) {
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            uint64x2_t d = vreinterpretq_u64_u8(vld1q_u8(src + STRIPE * s + 16 * q));
            if (copy) {
                vst1q_u8(dst + STRIPE * s + 16 * q, vreinterpretq_u8_u64(d));
            }
            uint64x2_t k = veorq_u64(d, vreinterpretq_u64_u8(vld1q_u8(key + 8 * s + 16 * q)));
            acc[q] = vmlal_u32(acc[q], vmovn_u64(k), vshrn_n_u64(k, 32)); /* low half times high half */
            data[q] = vaddq_u64(data[q], d);
        }
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        acc[q] = vaddq_u64(acc[q], vextq_u64(data[q], data[q], 1));
    }
}

static inline void scramble128(uint64x2_t acc[4]) {
    uint32x2_t prime = vdup_n_u32((uint32_t) P32_1);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        uint64x2_t a = veorq_u64(veorq_u64(acc[q], vshrq_n_u64(acc[q], 47)),
                vreinterpretq_u64_u8(vld1q_u8(SECRET + SCRAMBLE_KEY + 16 * q)));
        acc[q] = vmlal_u32(vshlq_n_u64(vmull_u32(vshrn_n_u64(a, 32), prime), 32), vmovn_u64(a), prime);
    }
}

__attribute__((always_inline))
static inline uint64_t run128(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last,
        int copy) {
    uint64x2_t acc[4];
    for (int q = 0; q < 4; q++) {
        acc[q] = vld1q_u64(state + 2 * q);
    }
    size_t blocks = last ? (len - 1) / BLOCK : len / BLOCK;
    for (size_t b = 0; b < blocks; b++) {
        stripes128(acc, dst + b * BLOCK, src + b * BLOCK, STRIPES_PER_BLOCK, SECRET, copy);
        scramble128(acc);
    }
    if (!last) {
        for (int q = 0; q < 4; q++) {
            vst1q_u64(state + 2 * q, acc[q]);
        }
        return 0;
    }
    size_t off = blocks * BLOCK, n = (len - 1 - off) / STRIPE;
    stripes128(acc, dst + off, src + off, n, SECRET, copy);
    off += n * STRIPE;
    if (copy) {
        memcpy(dst + off, src + off, len - off);
    }
    stripes128(acc, NULL, (copy ? dst : src) + len - STRIPE, 1, SECRET + LAST_STRIPE_KEY, 0);
    uint64_t out[8];
    for (int q = 0; q < 4; q++) {
        vst1q_u64(out + 2 * q, acc[q]);
    }
    return merge(out, total);
}

static uint64_t run(uint64_t *state, uint8_t *dst, const uint8_t *src, size_t len, uint64_t total, int last) {
    return dst ? run128(state, dst, src, len, total, last, 1) : run128(state, NULL, src, len, total, last, 0);
}
#endif

/* The accumulators' starting values. */
void mc_xxh3_start(uint64_t state[8]) {
    const uint64_t init[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
    memcpy(state, init, sizeof init);
}

/*
 * Copies len bytes from src to dst (not overlapping; dst NULL: no copy) and folds them into
 * state, a piece of a longer input that is not its last: len is a multiple of 1,024.
 */
void mc_copy_xxh3_blocks(uint64_t state[8], void *dst, const void *src, size_t len) {
    run(state, dst, src, len, 0, 0);
}

/*
 * Copies the last piece, len bytes (dst NULL: no copy), and returns the XXH3-64 of the whole
 * input, total bytes, of which state holds the pieces before. A piece of more than 240 bytes
 * unless it is the whole input.
 */
uint64_t mc_copy_xxh3_last(uint64_t state[8], void *dst, const void *src, size_t len, uint64_t total) {
    if (total <= 240) {
        if (dst) {
            memcpy(dst, src, len);
        }
        return hash_short(dst ? dst : src, len); /* of what landed */
    }
    return run(state, dst, src, len, total, 1);
}

/* Copies len bytes from src to dst (dst NULL: no copy) and returns their XXH3-64. */
uint64_t mc_copy_xxh3(void *dst, const void *src, size_t len) {
    uint64_t state[8] __attribute__((aligned(64)));
    mc_xxh3_start(state);
    return mc_copy_xxh3_last(state, dst, src, len, len);
}
