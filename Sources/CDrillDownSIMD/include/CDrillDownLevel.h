#ifndef CDRILLDOWNLEVEL_H
#define CDRILLDOWNLEVEL_H

// The lazy JSON index's level scan: finds where the direct children of one container (an array's
// elements, an object's members) are separated, 64 bytes at a time, without looking inside them.
// Per block it builds bitmasks of quotes, backslashes, brackets and commas (SSE2 move-mask on
// x86-64, a byte loop elsewhere), works out which bytes are inside strings (escaped quotes
// removed, then a prefix XOR carried from block to block, as the JSON reader's stage 1 does) and
// walks only the brackets outside strings to track the nesting depth; commas are read only while
// the depth is that of the container's own children. Nested containers are skipped by depth
// counting, so a level costs one pass over its container's bytes and memory only for its
// separators. Header only: inlined into the Swift code that calls it.

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The state of one level scan, resumable at a block boundary.
typedef struct {
    /// The offset of the next 64-byte block to classify.
    uint64_t next;
    /// All ones when the previous block ended inside a string.
    uint64_t inString;
    /// 1 when the next block's first byte is escaped by a backslash.
    uint64_t escape;
    /// Nesting relative to the container: 0 before its opening bracket, 1 among its children.
    int64_t depth;
    /// The offset of the container's closing bracket, once `state` is `DD_LEVEL_CLOSED`.
    uint64_t close;
    /// `DD_LEVEL_RUNNING`, `DD_LEVEL_CLOSED` or `DD_LEVEL_UNTERMINATED` (the input ended first).
    int32_t state;
} dd_json_level;

enum { DD_LEVEL_RUNNING = 0, DD_LEVEL_CLOSED = 1, DD_LEVEL_UNTERMINATED = 2 };

/// A scan of the container whose opening bracket is at `open`.
static inline dd_json_level dd_json_level_start(uint64_t open) {
    dd_json_level s = {open, 0, 0, 0, 0, DD_LEVEL_RUNNING};
    return s;
}

/// Bit i set when an odd number of bits at or below i are set in `x`.
static inline uint64_t dd_prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/// Quotes, backslashes, opening brackets, closing brackets and commas of the 64 bytes at `p`.
static inline void dd_level_classify(const uint8_t *p, uint64_t *quote, uint64_t *backslash, uint64_t *open,
                                     uint64_t *close, uint64_t *comma) {
    uint64_t q = 0, b = 0, o = 0, c = 0, m = 0;
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), vo = _mm_set1_epi8('{');
    const __m128i vc = _mm_set1_epi8('}'), vm = _mm_set1_epi8(','), lower = _mm_set1_epi8(0x20);
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        __m128i folded = _mm_or_si128(v, lower);  // [ -> {, ] -> }
        int shift = 16 * k;
        q |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << shift;
        b |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << shift;
        o |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, vo)) << shift;
        c |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, vc)) << shift;
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vm)) << shift;
    }
#else
    for (int i = 0; i < 64; i++) {
        uint8_t x = p[i], f = x | 0x20;
        uint64_t bit = (uint64_t)1 << i;
        if (x == '"') q |= bit;
        if (x == '\\') b |= bit;
        if (f == '{') o |= bit;
        if (f == '}') c |= bit;
        if (x == ',') m |= bit;
    }
#endif
    *quote = q;
    *backslash = b;
    *open = o;
    *close = c;
    *comma = m;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>
#define DD_LEVEL_AVX2 1

/// Whether the processor and the system support AVX2 (the system saves the 256-bit registers).
static inline int dd_level_has_avx2(void) {
    static int known = -1;
    if (known >= 0) return known;
    unsigned a, b, c, d;
    int yes = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2)) yes = 1;
    }
    known = yes;
    return yes;
}
/// ``dd_level_classify`` with 32-byte compares, for processors with AVX2 (asked at run time).
__attribute__((target("avx2"))) static inline void dd_level_classify_avx2(const uint8_t *p, uint64_t *quote, uint64_t *backslash,
                                                                        uint64_t *open, uint64_t *close, uint64_t *comma) {
    const __m256i vq = _mm256_set1_epi8('"'), vb = _mm256_set1_epi8('\\'), vo = _mm256_set1_epi8('{');
    const __m256i vc = _mm256_set1_epi8('}'), vm = _mm256_set1_epi8(','), lower = _mm256_set1_epi8(0x20);
    __m256i lo = _mm256_loadu_si256((const __m256i *)p), hi = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i flo = _mm256_or_si256(lo, lower), fhi = _mm256_or_si256(hi, lower);
#define DD_MASK(a, b) ((uint64_t)(uint32_t)_mm256_movemask_epi8(a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32)
    *quote = DD_MASK(_mm256_cmpeq_epi8(lo, vq), _mm256_cmpeq_epi8(hi, vq));
    *backslash = DD_MASK(_mm256_cmpeq_epi8(lo, vb), _mm256_cmpeq_epi8(hi, vb));
    *open = DD_MASK(_mm256_cmpeq_epi8(flo, vo), _mm256_cmpeq_epi8(fhi, vo));
    *close = DD_MASK(_mm256_cmpeq_epi8(flo, vc), _mm256_cmpeq_epi8(fhi, vc));
    *comma = DD_MASK(_mm256_cmpeq_epi8(lo, vm), _mm256_cmpeq_epi8(hi, vm));
#undef DD_MASK
}
#endif

/// Continues the scan `s` over the `n` bytes at `p`: appends to `out` (from `count`) the offset of
/// the container's opening bracket and of every comma between its children, and returns the new
/// count. It returns when the container closes, when the input ends, after a block that brought
/// the count to `want` or more, or before a block when fewer than 64 slots are left
/// (`capacity - count < 64`): call it again to go on.
static inline uint64_t dd_json_level_scan(const uint8_t *p, uint64_t n, dd_json_level *s, uint64_t *out, uint64_t count,
                                          uint64_t capacity, uint64_t want) {
    uint8_t tail[64];
#if DD_LEVEL_AVX2
    const int avx2 = dd_level_has_avx2();
#endif
    uint64_t inString = s->inString, escape = s->escape;
    int64_t depth = s->depth;
    while (s->state == DD_LEVEL_RUNNING) {
        if (s->next >= n) {
            s->state = DD_LEVEL_UNTERMINATED;
            break;
        }
        if (capacity - count < 64 || count >= want) break;
        uint64_t start = s->next;
        const uint8_t *block = p + start;
        if (n - start < 64) {
            for (int i = 0; i < 64; i++) tail[i] = start + i < n ? p[start + i] : ' ';
            block = tail;
        }
        s->next = start + 64;
        uint64_t quote, backslash, open, close, comma;
#if DD_LEVEL_AVX2
        if (avx2) dd_level_classify_avx2(block, &quote, &backslash, &open, &close, &comma);
        else
#endif
        dd_level_classify(block, &quote, &backslash, &open, &close, &comma);
        // Escaped bytes: the byte after an odd run of backslashes.
        uint64_t escaped = escape;
        if (backslash) {
            const uint64_t odd = 0xAAAAAAAAAAAAAAAAull;
            uint64_t potential = backslash & ~escape;
            uint64_t code = (((potential << 1) | odd) - potential) ^ odd;
            escaped = code ^ (backslash | escape);
            escape = (code & backslash) >> 63;
        } else {
            escape = 0;
        }
        quote &= ~escaped;
        uint64_t inside = dd_prefix_xor(quote) ^ inString;
        inString = (uint64_t)0 - (inside >> 63);
        uint64_t outside = ~inside;
        open &= outside;
        close &= outside;
        comma &= outside;
        uint64_t brackets = open | close;
        uint64_t pending = ~(uint64_t)0;  // bits not yet passed
        while (brackets) {
            int b = __builtin_ctzll(brackets);
            uint64_t bit = (uint64_t)1 << b;
            if (depth == 1) {
                uint64_t m = comma & pending & (bit - 1);
                while (m) {
                    out[count++] = start + (uint64_t)__builtin_ctzll(m);
                    m &= m - 1;
                }
            }
            if (open & bit) {
                depth++;
                if (depth == 1) out[count++] = start + (uint64_t)b;
            } else {
                depth--;
                if (depth == 0) {
                    s->close = start + (uint64_t)b;
                    s->state = DD_LEVEL_CLOSED;
                    break;
                }
            }
            pending = ~((bit << 1) - 1);
            if (b == 63) pending = 0;
            brackets &= brackets - 1;
        }
        if (s->state != DD_LEVEL_RUNNING) break;
        if (depth == 1) {
            uint64_t m = comma & pending;
            while (m) {
                out[count++] = start + (uint64_t)__builtin_ctzll(m);
                m &= m - 1;
            }
        }
    }
    s->inString = inString;
    s->escape = escape;
    s->depth = depth;
    return count;
}

#endif
