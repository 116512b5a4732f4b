/*
 * The stack scrub after secret work (contract in rsa_key.h: what the engine's kernels leave
 * in their frames, and why CTRSA_SCRUB_STACK_BYTES covers it). A leaf: it uses nothing of
 * the key object, and the key object, its operations and key generation call it.
 *
 * Secret: whatever the frames below the caller's held; the area is only written, never read.
 */
#include <stdint.h>
#include <string.h>
#include "rsa_key.h"

/* Contract in rsa_key.h. */
__attribute__((noinline)) void ctrsa_scrub_stack(void)
{
    /* memset, then an empty asm that takes the area and clobbers memory, so the stores
     * cannot be dropped: one AVX2 memset instead of 32768 volatile byte stores (those were
     * about 1.7% of an RSA-2048 signature on Zen 3) */
    uint8_t area[CTRSA_SCRUB_STACK_BYTES];
    memset(area, 0, sizeof(area));
    __asm__ volatile("" : : "r"(area) : "memory");
}
