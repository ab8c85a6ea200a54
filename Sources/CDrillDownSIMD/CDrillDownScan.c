// Stage 1's plain-block fast path (see CDrillDownScan.h). The rest of the module is header only
// (static inline functions).
#include "CDrillDownScan.h"
#include "CDrillDownSIMD.h"
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#endif

int dd_usable_processors(void) {
#if defined(__linux__)
    // The raw system call, which returns the mask's size in bytes (glibc's wrapper needs _GNU_SOURCE).
    unsigned long mask[64] = {0};
    long size = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (size <= 0) return 1;
    int n = 0;
    for (long i = 0; i < size / (long)sizeof(unsigned long); i++) n += __builtin_popcountl(mask[i]);
    return n > 0 ? n : 1;
#elif defined(__APPLE__)
    int n = 1;
    size_t size = sizeof n;
    return sysctlbyname("hw.activecpu", &n, &size, NULL, 0) == 0 && n > 0 ? n : 1;
#else
    return 1;
#endif
}

/// The masks of a block that the fast path needs.
typedef struct {
    uint64_t quote, other, op, whitespace, control;
} dd_plain_masks;

/// One block of the fast path from its masks, where `other` marks the bytes that make it not plain
/// (backslash, non-ASCII, control other than tab, LF, CR); `TZ` counts trailing zeros (64 for 0).
/// When the block is not plain it jumps to `stop` with the entries and the carry untouched.
#define DD_PLAIN_BLOCK(m, p, blockStart, positions, bytes, n, carry, TZ)                                                 \
    do {                                                                                                                \
        if ((m).other != 0) goto stop;                                                                                  \
        uint64_t inString = dd_prefix_xor((m).quote) ^ (carry)->inStringCarry;                                          \
        if ((m).control & inString) goto stop;                                                                          \
        (carry)->inStringCarry = 0 - (inString >> 63);                                                                  \
        uint64_t stringTail = inString ^ (m).quote;                                                                     \
        uint64_t scalar = ~((m).op | (m).whitespace);                                                                   \
        uint64_t nonQuoteScalar = scalar & ~(m).quote;                                                                  \
        uint64_t followsScalar = nonQuoteScalar << 1 | (carry)->scalarCarry;                                            \
        (carry)->scalarCarry = nonQuoteScalar >> 63;                                                                    \
        uint64_t s = (((m).op | (scalar & ~followsScalar)) & ~stringTail) | ((m).quote & ~inString);                    \
        uint64_t total = (n) + (uint64_t)__builtin_popcountll(s);                                                       \
        uint32_t start = (uint32_t)(blockStart);                                                                        \
        for (uint64_t i = (n); i < total; i += 4) {                                                                     \
            for (int k = 0; k < 4; k++) {                                                                               \
                uint64_t bit = TZ(s);                                                                                   \
                (positions)[i + k] = start + (uint32_t)bit;                                                             \
                (bytes)[i + k] = (p)[bit & 63];                                                                         \
                s &= s - 1;                                                                                             \
            }                                                                                                           \
        }                                                                                                               \
        (n) = total;                                                                                                    \
    } while (0)

static inline __attribute__((always_inline)) uint64_t dd_tz_portable(uint64_t x) {
    return x ? (uint64_t)__builtin_ctzll(x) : 64;
}

/// Scans plain blocks with the classifier `CLASSIFY` (a block's ``dd_plain_masks``) until one is
/// not plain, `blocks` are done or the index passes `limit`; the body of both builds below.
#define DD_SCAN_PLAIN(CLASSIFY, TZ)                                                                                     \
    uint64_t n = *np, done = 0;                                                                                         \
    dd_json_carry c = *carry; /* a local, kept in registers */                                                          \
    for (; done < blocks && n <= limit; done++) {                                                                       \
        const uint8_t *p = base + offset + 64 * done;                                                                   \
        dd_plain_masks m = CLASSIFY(p);                                                                                 \
        DD_PLAIN_BLOCK(m, p, offset + 64 * done, positions, bytes, n, &c, TZ);                                          \
    }                                                                                                                   \
    stop:                                                                                                               \
    *np = n;                                                                                                            \
    *carry = c;                                                                                                         \
    return done

/// The masks of the block at `p` with ``dd_json_classify`` (SSE2, NEON or bytes); tab, LF and CR
/// are the control bytes allowed between tokens.
static inline __attribute__((always_inline)) dd_plain_masks dd_plain_classify_baseline(const uint8_t *p) {
    dd_json_block b = dd_json_classify(p);
    uint64_t allowed = 0;
    for (uint64_t c = b.control; c; c &= c - 1) {
        uint8_t x = p[__builtin_ctzll(c)];
        if (x == 0x09 || x == 0x0A || x == 0x0D) allowed |= c & (0 - c);
    }
    dd_plain_masks m = {b.quote, b.backslash | b.nonASCII | (b.control & ~allowed), b.op, b.whitespace, b.control};
    return m;
}

uint64_t dd_json_scan_plain_baseline(const uint8_t *base, uint64_t offset, uint64_t blocks, uint32_t *positions,
                                     uint8_t *bytes, uint64_t *np, uint64_t limit, dd_json_carry *carry) {
    DD_SCAN_PLAIN(dd_plain_classify_baseline, dd_tz_portable);
}

#if DD_LEVEL_AVX2
__attribute__((target("avx2,bmi"))) static inline __attribute__((always_inline)) dd_plain_masks
dd_plain_classify_avx2(const uint8_t *p) {
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\'), colon = _mm256_set1_epi8(':');
    const __m256i comma = _mm256_set1_epi8(','), open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}');
    const __m256i lower = _mm256_set1_epi8(0x20), belowSpace = _mm256_set1_epi8(0x1F);
    const __m256i tab = _mm256_set1_epi8(0x09), lf = _mm256_set1_epi8(0x0A), cr = _mm256_set1_epi8(0x0D);
    const __m256i lo = _mm256_loadu_si256((const __m256i *)p), hi = _mm256_loadu_si256((const __m256i *)(p + 32));
#define DD_MASK(f) ((uint64_t)(uint32_t)_mm256_movemask_epi8(f(lo)) | (uint64_t)(uint32_t)_mm256_movemask_epi8(f(hi)) << 32)
#define DD_QUOTE(v) _mm256_cmpeq_epi8(v, quote)
#define DD_OP(v)                                                                                                      \
    _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(_mm256_or_si256(v, lower), open),                               \
                                    _mm256_cmpeq_epi8(_mm256_or_si256(v, lower), close)),                             \
                    _mm256_or_si256(_mm256_cmpeq_epi8(v, colon), _mm256_cmpeq_epi8(v, comma)))
#define DD_CONTROL(v) _mm256_cmpeq_epi8(_mm256_min_epu8(v, belowSpace), v)
#define DD_WHITESPACE(v) _mm256_cmpeq_epi8(_mm256_min_epu8(v, lower), v)
#define DD_SPACING(v) _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, tab), _mm256_cmpeq_epi8(v, lf)), _mm256_cmpeq_epi8(v, cr))
// Not plain: a backslash, a byte at or above 0x80 (its sign bit), a control byte that is not spacing.
#define DD_OTHER(v) _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, backslash), v), _mm256_andnot_si256(DD_SPACING(v), DD_CONTROL(v)))
    dd_plain_masks m = {DD_MASK(DD_QUOTE), DD_MASK(DD_OTHER), DD_MASK(DD_OP), DD_MASK(DD_WHITESPACE), DD_MASK(DD_CONTROL)};
    // Opaque to the optimizer: seeing through the move masks, clang turned the bit arithmetic that
    // follows (shifts, prefix XOR) into byte-by-byte vector lane moves, 3x slower than the masks.
    __asm__("" : "+r"(m.quote), "+r"(m.other), "+r"(m.op), "+r"(m.whitespace), "+r"(m.control));
#undef DD_MASK
#undef DD_QUOTE
#undef DD_OP
#undef DD_CONTROL
#undef DD_WHITESPACE
#undef DD_SPACING
#undef DD_OTHER
    return m;
}

__attribute__((target("avx2,bmi"))) static inline __attribute__((always_inline)) uint64_t dd_tz_bmi(uint64_t x) {
    return _tzcnt_u64(x);
}

__attribute__((target("avx2,bmi"))) static uint64_t dd_json_scan_plain_avx2(const uint8_t *base, uint64_t offset,
                                                                          uint64_t blocks, uint32_t *positions,
                                                                          uint8_t *bytes, uint64_t *np, uint64_t limit,
                                                                          dd_json_carry *carry) {
    DD_SCAN_PLAIN(dd_plain_classify_avx2, dd_tz_bmi);
}

/// Whether the processor has BMI1 (`tzcnt`), besides AVX2.
static int dd_has_bmi(void) {
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_BMI);
}
#endif

uint64_t dd_json_scan_plain(const uint8_t *base, uint64_t offset, uint64_t blocks, uint32_t *positions, uint8_t *bytes,
                            uint64_t *n, uint64_t limit, dd_json_carry *carry) {
#if DD_LEVEL_AVX2
    static int fast = -1;
    if (fast < 0) fast = dd_level_has_avx2() && dd_has_bmi();
    if (fast) return dd_json_scan_plain_avx2(base, offset, blocks, positions, bytes, n, limit, carry);
#endif
    return dd_json_scan_plain_baseline(base, offset, blocks, positions, bytes, n, limit, carry);
}
