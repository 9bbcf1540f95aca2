/*
 * Checks the copy kernel's entry points against the reference vectors (src/test/resources/
 * xxh3-vectors.txt): one-shot copy and hash, hashing without a copy, input fed in pieces of whole
 * blocks, every source and destination misaligned, and the copied bytes themselves. For the lanes
 * that the Java tests cannot reach on the build machine: check-kernel.sh builds it for aarch64
 * and runs it under qemu. Prints one line per failure and exits 1 if any.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mc_copy_kernel(void);
void mc_xxh3_start(uint64_t state[8]);
void mc_copy_xxh3_blocks(uint64_t state[8], void *dst, const void *src, size_t len);
uint64_t mc_copy_xxh3_last(uint64_t state[8], void *dst, const void *src, size_t len, uint64_t total);
uint64_t mc_copy_xxh3(void *dst, const void *src, size_t len);

static int failures;

static void expect(uint64_t want, uint64_t got, const char *what, size_t len, int shift) {
    if (want != got) {
        printf("FAIL %s, length %zu, misaligned by %d: %016" PRIx64 " != %016" PRIx64 "\n", what, len, shift, got, want);
        failures++;
    }
}

int main(int argc, char **argv) {
    FILE *f = fopen(argc > 1 ? argv[1] : "xxh3-vectors.txt", "r");
    if (!f) {
        perror("vectors");
        return 2;
    }
    size_t lens[256];
    uint64_t hashes[256];
    int n = 0;
    char line[256];
    while (n < 256 && fgets(line, sizeof line, f)) {
        if (line[0] != '#' && sscanf(line, "%zu %" SCNx64, &lens[n], &hashes[n]) == 2) {
            n++;
        }
    }
    fclose(f);
    size_t max = lens[n - 1];
    uint8_t *pattern = malloc(max + 64), *src = malloc(max + 64), *dst = malloc(max + 64);
    for (size_t i = 0; i < max; i++) {
        pattern[i] = (uint8_t) ((i * 0x9E3779B97F4A7C15ull) >> 56);
    }
    for (int v = 0; v < n; v++) {
        size_t len = lens[v];
        for (int shift = 0; shift < 64; shift += 21) { /* 0, 21, 42, 63 */
            memcpy(src + shift, pattern, len);
            memset(dst, 0xA5, max + 64);
            expect(hashes[v], mc_copy_xxh3(dst + (63 - shift), src + shift, len), "copy", len, shift);
            if (memcmp(dst + (63 - shift), pattern, len) != 0) {
                printf("FAIL copied bytes differ, length %zu\n", len);
                failures++;
            }
            expect(hashes[v], mc_copy_xxh3(NULL, src + shift, len), "hash", len, shift);
            if (len > 240) { /* pieces: whole blocks, then the rest; copied, and hashed only */
                for (size_t piece = 1024; piece < len; piece *= 4) {
                    for (int copy = 0; copy < 2; copy++) {
                        uint64_t state[8];
                        mc_xxh3_start(state);
                        size_t off = 0;
                        while (len - off > piece) {
                            mc_copy_xxh3_blocks(state, copy ? dst + off : NULL, src + shift + off, piece);
                            off += piece;
                        }
                        expect(hashes[v], mc_copy_xxh3_last(state, copy ? dst + off : NULL, src + shift + off, len - off, len),
                                copy ? "pieces" : "pieces, hash only", len, shift);
                    }
                }
            }
        }
    }
    printf("kernel %d: %d vectors, %d failures\n", mc_copy_kernel(), n, failures);
    return failures ? 1 : 0;
}
