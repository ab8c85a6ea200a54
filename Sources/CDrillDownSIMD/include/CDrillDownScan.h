#ifndef CDRILLDOWNSCAN_H
#define CDRILLDOWNSCAN_H

// The common case of the JSON reader's stage 1, in C: runs of 64-byte blocks that hold no
// backslash, no byte at or above 0x80 and no control byte other than tab, LF and CR outside
// strings (pretty-printed ASCII JSON is almost all such blocks). One call scans many blocks, so
// it is compiled once per instruction set (AVX2 where the processor has it, asked at run time;
// SSE2 otherwise) and chosen once per call. Every other block goes through the Swift scanner
// (`JSONStructuralScanner.scanBlock`), which checks and flags everything; the two write the same
// entries and carry the same state from block to block.

#include <stdint.h>

/// The state a plain block carries to the next (the Swift scanner's fields of the same names).
typedef struct {
    /// All ones when the previous block ended inside a string.
    uint64_t inStringCarry;
    /// 1 when the previous block ended in a number or literal byte.
    uint64_t scalarCarry;
} dd_json_carry;

/// Scans at most `blocks` whole blocks of 64 bytes from `base + offset`, each followed by at least
/// one more byte of input, stopping before the first block that is not plain (see above) and
/// before any block when `*n` exceeds `limit`. Appends each block's structural positions
/// (offsets, as `uint32_t`) and bytes from entry `*n` and advances `*n`; may write up to 64
/// entries past `limit`. The carry on entry must be that of a block with no backslash run
/// continuing and no open string holding a backslash. Returns the number of blocks scanned.
uint64_t dd_json_scan_plain(const uint8_t *base, uint64_t offset, uint64_t blocks, uint32_t *positions, uint8_t *bytes,
                            uint64_t *n, uint64_t limit, dd_json_carry *carry);

/// ``dd_json_scan_plain`` without AVX2 (SSE2 on x86-64), for tests that compare the two.
uint64_t dd_json_scan_plain_baseline(const uint8_t *base, uint64_t offset, uint64_t blocks, uint32_t *positions,
                                     uint8_t *bytes, uint64_t *n, uint64_t limit, dd_json_carry *carry);

/// The number of processors this process may run on (its affinity mask: `taskset`, a container's
/// cpuset), which can be fewer than the machine has online; 1 when the system does not say.
int dd_usable_processors(void);

#endif
