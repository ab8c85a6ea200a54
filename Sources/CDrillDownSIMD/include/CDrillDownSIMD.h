#ifndef CDRILLDOWNSIMD_H
#define CDRILLDOWNSIMD_H

// Byte classification of 64-byte blocks for the JSON reader's stage 1, one bit per byte (bit i
// is byte i), with the vector unit's "move mask" instruction, which Swift's SIMD types do not
// expose (gathering the bits with multiplies cost about three times the instructions). SSE2 on
// x86-64, NEON on ARM64, a byte loop elsewhere; all three give the same masks. These functions
// are inlined into the Swift code that calls them; stage 1's plain-block loop, compiled once per
// instruction set, is in CDrillDownScan.c (CDrillDownScan.h).

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/// The classes of the 64 bytes of a block.
typedef struct {
    /// `"`.
    uint64_t quote;
    /// `\`.
    uint64_t backslash;
    /// One of `{}[]:,`.
    uint64_t op;
    /// A byte at or below 0x20 (space and every control byte).
    uint64_t whitespace;
    /// A byte below 0x20.
    uint64_t control;
    /// A byte at or above 0x80.
    uint64_t nonASCII;
} dd_json_block;

#if defined(__aarch64__) && defined(__ARM_NEON)
/// One bit per byte of `v` (whose bytes are 0 or 0xFF).
static inline uint16_t dd_neon_mask16(uint8x16_t v) {
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t bits = vandq_u8(v, vld1q_u8(weights));
    return (uint16_t)(vaddv_u8(vget_low_u8(bits)) | (vaddv_u8(vget_high_u8(bits)) << 8));
}
#endif

/// Classifies the 64 bytes at `p` (all readable).
static inline dd_json_block dd_json_classify(const uint8_t *p) {
    dd_json_block b = {0, 0, 0, 0, 0, 0};
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), colon = _mm_set1_epi8(':');
    const __m128i comma = _mm_set1_epi8(','), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    const __m128i lower = _mm_set1_epi8(0x20), space = _mm_set1_epi8(0x20), belowSpace = _mm_set1_epi8(0x1F);
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        __m128i folded = _mm_or_si128(v, lower);  // [ → {, ] → }
        __m128i op = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)));
        int shift = 16 * k;
        b.quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
        b.backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
        b.op |= (uint64_t)(uint16_t)_mm_movemask_epi8(op) << shift;
        b.whitespace |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v)) << shift;
        b.control |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, belowSpace), v)) << shift;
        b.nonASCII |= (uint64_t)(uint16_t)_mm_movemask_epi8(v) << shift;
    }
#elif defined(__aarch64__) && defined(__ARM_NEON)
    for (int k = 0; k < 4; k++) {
        uint8x16_t v = vld1q_u8(p + 16 * k);
        uint8x16_t folded = vorrq_u8(v, vdupq_n_u8(0x20));
        uint8x16_t op = vorrq_u8(vorrq_u8(vceqq_u8(folded, vdupq_n_u8('{')), vceqq_u8(folded, vdupq_n_u8('}'))),
                                 vorrq_u8(vceqq_u8(v, vdupq_n_u8(':')), vceqq_u8(v, vdupq_n_u8(','))));
        int shift = 16 * k;
        b.quote |= (uint64_t)dd_neon_mask16(vceqq_u8(v, vdupq_n_u8('"'))) << shift;
        b.backslash |= (uint64_t)dd_neon_mask16(vceqq_u8(v, vdupq_n_u8('\\'))) << shift;
        b.op |= (uint64_t)dd_neon_mask16(op) << shift;
        b.whitespace |= (uint64_t)dd_neon_mask16(vcleq_u8(v, vdupq_n_u8(0x20))) << shift;
        b.control |= (uint64_t)dd_neon_mask16(vcltq_u8(v, vdupq_n_u8(0x20))) << shift;
        b.nonASCII |= (uint64_t)dd_neon_mask16(vcgeq_u8(v, vdupq_n_u8(0x80))) << shift;
    }
#else
    for (int i = 0; i < 64; i++) {
        uint8_t c = p[i], f = c | 0x20;
        uint64_t bit = (uint64_t)1 << i;
        if (c == '"') b.quote |= bit;
        if (c == '\\') b.backslash |= bit;
        if (f == '{' || f == '}' || c == ':' || c == ',') b.op |= bit;
        if (c <= 0x20) b.whitespace |= bit;
        if (c < 0x20) b.control |= bit;
        if (c >= 0x80) b.nonASCII |= bit;
    }
#endif
    return b;
}

/// Counts of a whole JSON input, for sizing the store before reading it.
typedef struct {
    /// Bytes that are `,`, `[` or `{` (inside strings too).
    uint64_t separators;
    /// Bytes that are whitespace (or control), a quote or one of `,:[]{}` (inside strings too).
    uint64_t syntax;
} dd_json_counts;

/// Counts the `n` bytes at `p`.
static inline dd_json_counts dd_json_count(const uint8_t *p, uint64_t n) {
    dd_json_counts c = {0, 0};
    uint64_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(',');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), lower = _mm_set1_epi8(0x20);
    const __m128i zero = _mm_setzero_si128();
    while (n - i >= 16) {
        // Per lane, minus one per hit (compares give 0xFF); at most 255 rounds before summing.
        __m128i separators = zero, syntax = zero;
        uint64_t rounds = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
        for (uint64_t r = 0; r < rounds; r++, i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            __m128i folded = _mm_or_si128(v, lower);
            __m128i separator = _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(folded, open));
            __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, colon)),
                                         _mm_or_si128(_mm_cmpeq_epi8(folded, close), _mm_cmpeq_epi8(_mm_min_epu8(v, lower), v)));
            separators = _mm_sub_epi8(separators, separator);
            syntax = _mm_sub_epi8(syntax, _mm_or_si128(separator, other));
        }
        __m128i s1 = _mm_sad_epu8(separators, zero), s2 = _mm_sad_epu8(syntax, zero);
        c.separators += (uint64_t)_mm_cvtsi128_si64(s1) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s1, s1));
        c.syntax += (uint64_t)_mm_cvtsi128_si64(s2) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s2, s2));
    }
#elif defined(__aarch64__) && defined(__ARM_NEON)
    while (n - i >= 16) {
        uint8x16_t separators = vdupq_n_u8(0), syntax = vdupq_n_u8(0);
        uint64_t rounds = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
        for (uint64_t r = 0; r < rounds; r++, i += 16) {
            uint8x16_t v = vld1q_u8(p + i);
            uint8x16_t folded = vorrq_u8(v, vdupq_n_u8(0x20));
            uint8x16_t separator = vorrq_u8(vceqq_u8(v, vdupq_n_u8(',')), vceqq_u8(folded, vdupq_n_u8('{')));
            uint8x16_t other = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8(':'))),
                                        vorrq_u8(vceqq_u8(folded, vdupq_n_u8('}')), vcleq_u8(v, vdupq_n_u8(0x20))));
            separators = vsubq_u8(separators, separator);
            syntax = vsubq_u8(syntax, vorrq_u8(separator, other));
        }
        c.separators += vaddlvq_u8(separators);
        c.syntax += vaddlvq_u8(syntax);
    }
#endif
    for (; i < n; i++) {
        uint8_t b = p[i], f = b | 0x20;
        int separator = b == ',' || f == '{';
        c.separators += separator;
        c.syntax += separator || b <= 0x20 || b == '"' || b == ':' || f == '}';
    }
    return c;
}

// The lazy JSON index's level scan (its own header).
#include "CDrillDownLevel.h"

#if DD_LEVEL_AVX2
/// ``dd_json_count`` with 32-byte compares, for processors with AVX2 (asked at run time).
__attribute__((target("avx2"))) static inline dd_json_counts dd_json_count_avx2(const uint8_t *p, uint64_t n) {
    dd_json_counts c = {0, 0};
    uint64_t i = 0;
    const __m256i quote = _mm256_set1_epi8('"'), colon = _mm256_set1_epi8(':'), comma = _mm256_set1_epi8(',');
    const __m256i open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}'), lower = _mm256_set1_epi8(0x20);
    const __m256i zero = _mm256_setzero_si256();
    while (n - i >= 32) {
        __m256i separators = zero, syntax = zero;
        uint64_t rounds = (n - i) / 32 < 255 ? (n - i) / 32 : 255;
        for (uint64_t r = 0; r < rounds; r++, i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
            __m256i folded = _mm256_or_si256(v, lower);
            __m256i separator = _mm256_or_si256(_mm256_cmpeq_epi8(v, comma), _mm256_cmpeq_epi8(folded, open));
            __m256i other = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, colon)),
                                            _mm256_or_si256(_mm256_cmpeq_epi8(folded, close), _mm256_cmpeq_epi8(_mm256_min_epu8(v, lower), v)));
            separators = _mm256_sub_epi8(separators, separator);
            syntax = _mm256_sub_epi8(syntax, _mm256_or_si256(separator, other));
        }
        __m256i s1 = _mm256_sad_epu8(separators, zero), s2 = _mm256_sad_epu8(syntax, zero);
        c.separators += (uint64_t)_mm256_extract_epi64(s1, 0) + (uint64_t)_mm256_extract_epi64(s1, 1) +
                        (uint64_t)_mm256_extract_epi64(s1, 2) + (uint64_t)_mm256_extract_epi64(s1, 3);
        c.syntax += (uint64_t)_mm256_extract_epi64(s2, 0) + (uint64_t)_mm256_extract_epi64(s2, 1) +
                    (uint64_t)_mm256_extract_epi64(s2, 2) + (uint64_t)_mm256_extract_epi64(s2, 3);
    }
    dd_json_counts rest = dd_json_count(p + i, n - i);
    c.separators += rest.separators;
    c.syntax += rest.syntax;
    return c;
}
#endif

/// ``dd_json_count`` with the widest vectors the processor has (AVX2 when there is, asked at run time).
static inline dd_json_counts dd_json_count_fast(const uint8_t *p, uint64_t n) {
#if DD_LEVEL_AVX2
    if (dd_level_has_avx2()) return dd_json_count_avx2(p, n);
#endif
    return dd_json_count(p, n);
}

#endif
