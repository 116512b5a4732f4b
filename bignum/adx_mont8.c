/*
 * The "adx" backend's 8-limb (512-bit modulus) Montgomery multiplication with the whole
 * running value in registers: RSA-1024 CRT halves, Miller-Rabin on 512-bit primes, RSA-512.
 * At 8 limbs the memory-based rows of adx_mont.c spend more on loads, stores, zeroing and
 * call overhead than on the 128 MULX, so this one keeps the 9-limb accumulator in nine
 * registers, renamed instead of shifted from row to row.
 *
 *   void ctbn_adx_mont_mul8(uint64_t r[8], const uint64_t a[8], const uint64_t b[8],
 *                           const uint64_t m[8], uint64_t m0inv);
 *
 * r := a * b * R^-1 mod m, R = 2^512, fully reduced. Requires a < R, b < m, m odd,
 * m0inv = -m^-1 mod 2^64. r MAY alias a or b (written only after both are read); r MUST NOT
 * alias m. Only called when the CPU has BMI2 and ADX (adx_mont.c, backend.c).
 *
 * A file-scope assembly function (System V ABI: rdi = r, rsi = a, rdx = b, rcx = m,
 * r8 = m0inv) rather than inline assembly: it needs all fifteen general registers, rbp
 * included, which inline assembly cannot claim under every build option.
 *
 * Per row i (CIOS): acc[0..8] += a[i] * b (MULX; low halves on the CF chain with ADCX, high
 * halves on the OF chain with ADOX), then q = acc[0] * m0inv and acc[0..8] += q * m, which
 * zeroes acc[0]; that register then takes the carry out of the row (0 or 1: the value stays
 * below 2m) and becomes acc[8] of the next row. t + a[i] * b < (2^64 + 1) m can pass 2^576
 * for a moment: that carry waits on the stack between the two halves of the row. The final subtraction of m is masked.
 *
 * CT: straight-line code: no branch, no address depends on a value; the carries are flags
 * consumed by ADCX/ADOX/SBB, the final choice a mask from SBB. Only the size (8) leaks.
 */
#include "backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__ELF__)

/* clang-format off */
__asm__(
    ".text\n"
    ".p2align 5\n"
    ".globl ctbn_adx_mont_mul8\n"
    ".hidden ctbn_adx_mont_mul8\n"
    ".type ctbn_adx_mont_mul8, @function\n"
    /* acc[0..8] += rdx * b[0..7]; in: CF = OF = 0; out: CF = OF = 0 */
    ".macro CTBN_ADX8_ROWB a0, a1, a2, a3, a4, a5, a6, a7, a8\n"
    "  mulx 0(%rdi), %rax, %rbx\n  adcx %rax, \\a0\n  adox %rbx, \\a1\n"
    "  mulx 8(%rdi), %rax, %rbx\n  adcx %rax, \\a1\n  adox %rbx, \\a2\n"
    "  mulx 16(%rdi), %rax, %rbx\n  adcx %rax, \\a2\n  adox %rbx, \\a3\n"
    "  mulx 24(%rdi), %rax, %rbx\n  adcx %rax, \\a3\n  adox %rbx, \\a4\n"
    "  mulx 32(%rdi), %rax, %rbx\n  adcx %rax, \\a4\n  adox %rbx, \\a5\n"
    "  mulx 40(%rdi), %rax, %rbx\n  adcx %rax, \\a5\n  adox %rbx, \\a6\n"
    "  mulx 48(%rdi), %rax, %rbx\n  adcx %rax, \\a6\n  adox %rbx, \\a7\n"
    "  mulx 56(%rdi), %rax, %rbx\n  adcx %rax, \\a7\n  adox %rbx, \\a8\n"
    "  mov $0, %eax\n"                 /* mov keeps the flags */
    "  adcx %rax, \\a8\n"              /* CF = c1, OF = c2: the carries out of a8 */
    "  mov $0, %ebx\n"
    "  adcx %rbx, %rax\n"              /* rax = c1, CF = 0 */
    "  adox %rbx, %rax\n"              /* rax = c = c1 + c2 <= 1, OF = 0 */
    "  push %rax\n"                    /* c waits on the stack for ROWM */
    ".endm\n"
    /* q = a0 * m0inv; acc[0..8] += q * m[0..7]; a0 := the carry out (0 or 1) */
    ".macro CTBN_ADX8_ROWM a0, a1, a2, a3, a4, a5, a6, a7, a8\n"
    "  mov \\a0, %rdx\n"
    "  imul 8(%rsp), %rdx\n"           /* m0inv, above c */
    "  xor %eax, %eax\n"               /* CF = OF = 0 (imul left them undefined) */
    "  mulx 0(%rcx), %rax, %rbx\n  adcx %rax, \\a0\n  adox %rbx, \\a1\n"
    "  mulx 8(%rcx), %rax, %rbx\n  adcx %rax, \\a1\n  adox %rbx, \\a2\n"
    "  mulx 16(%rcx), %rax, %rbx\n  adcx %rax, \\a2\n  adox %rbx, \\a3\n"
    "  mulx 24(%rcx), %rax, %rbx\n  adcx %rax, \\a3\n  adox %rbx, \\a4\n"
    "  mulx 32(%rcx), %rax, %rbx\n  adcx %rax, \\a4\n  adox %rbx, \\a5\n"
    "  mulx 40(%rcx), %rax, %rbx\n  adcx %rax, \\a5\n  adox %rbx, \\a6\n"
    "  mulx 48(%rcx), %rax, %rbx\n  adcx %rax, \\a6\n  adox %rbx, \\a7\n"
    "  mulx 56(%rcx), %rax, %rbx\n  adcx %rax, \\a7\n  adox %rbx, \\a8\n"
    "  mov $0, %eax\n"
    "  adcx %rax, \\a8\n"              /* CF = c1, OF = c2 */
    "  adcx %rax, \\a0\n"              /* a0 was exactly 0: a0 = c1, CF = 0 */
    "  adox %rax, \\a0\n"              /* a0 = c1 + c2, OF = 0 */
    "  pop %rax\n"
    "  add %rax, \\a0\n"               /* a0 = c + c1 + c2 <= 1 (t < 2m); CF = OF = 0 */
    ".endm\n"
    ".macro CTBN_ADX8_ROW i, a0, a1, a2, a3, a4, a5, a6, a7, a8\n"
    "  mov 8*\\i(%rsi), %rdx\n"
    "  CTBN_ADX8_ROWB \\a0, \\a1, \\a2, \\a3, \\a4, \\a5, \\a6, \\a7, \\a8\n"
    "  CTBN_ADX8_ROWM \\a0, \\a1, \\a2, \\a3, \\a4, \\a5, \\a6, \\a7, \\a8\n"
    ".endm\n"
    "ctbn_adx_mont_mul8:\n"
    "  push %rbx\n  push %rbp\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"
    "  push %rdi\n"                    /* 8(%rsp): r */
    "  push %r8\n"                     /* 0(%rsp): m0inv */
    "  mov %rdx, %rdi\n"               /* rdi: b (rdx is MULX's implicit operand) */
    "  xor %r8d, %r8d\n  xor %r9d, %r9d\n  xor %r10d, %r10d\n  xor %r11d, %r11d\n"
    "  xor %r12d, %r12d\n  xor %r13d, %r13d\n  xor %r14d, %r14d\n  xor %r15d, %r15d\n"
    "  xor %ebp, %ebp\n"               /* acc = 0, CF = OF = 0 */
    /* row i: acc[k] is register (i + k) mod 9 of r8..r15, rbp */
    "  CTBN_ADX8_ROW 0, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %rbp\n"
    "  CTBN_ADX8_ROW 1, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %rbp, %r8\n"
    "  CTBN_ADX8_ROW 2, %r10, %r11, %r12, %r13, %r14, %r15, %rbp, %r8, %r9\n"
    "  CTBN_ADX8_ROW 3, %r11, %r12, %r13, %r14, %r15, %rbp, %r8, %r9, %r10\n"
    "  CTBN_ADX8_ROW 4, %r12, %r13, %r14, %r15, %rbp, %r8, %r9, %r10, %r11\n"
    "  CTBN_ADX8_ROW 5, %r13, %r14, %r15, %rbp, %r8, %r9, %r10, %r11, %r12\n"
    "  CTBN_ADX8_ROW 6, %r14, %r15, %rbp, %r8, %r9, %r10, %r11, %r12, %r13\n"
    "  CTBN_ADX8_ROW 7, %r15, %rbp, %r8, %r9, %r10, %r11, %r12, %r13, %r14\n"
    /* the value is top:(rbp, r8..r14) < 2m with top = r15; d = value - m into r */
    "  mov 8(%rsp), %rdi\n"
    "  mov %rbp, %rax\n  sub 0(%rcx), %rax\n  mov %rax, 0(%rdi)\n"
    "  mov %r8, %rax\n  sbb 8(%rcx), %rax\n  mov %rax, 8(%rdi)\n"
    "  mov %r9, %rax\n  sbb 16(%rcx), %rax\n  mov %rax, 16(%rdi)\n"
    "  mov %r10, %rax\n  sbb 24(%rcx), %rax\n  mov %rax, 24(%rdi)\n"
    "  mov %r11, %rax\n  sbb 32(%rcx), %rax\n  mov %rax, 32(%rdi)\n"
    "  mov %r12, %rax\n  sbb 40(%rcx), %rax\n  mov %rax, 40(%rdi)\n"
    "  mov %r13, %rax\n  sbb 48(%rcx), %rax\n  mov %rax, 48(%rdi)\n"
    "  mov %r14, %rax\n  sbb 56(%rcx), %rax\n  mov %rax, 56(%rdi)\n"
    "  sbb $0, %r15\n"                 /* borrow: the value was < m, keep it */
    "  sbb %rsi, %rsi\n"               /* rsi: keep-mask (all ones on borrow) */
    /* r[j] := d[j] ^ ((d[j] ^ value[j]) & mask) */
    ".irp v, %rbp, %r8, %r9, %r10, %r11, %r12, %r13, %r14\n"
    "  mov (%rdi), %rax\n  xor %rax, \\v\n  and %rsi, \\v\n  xor \\v, %rax\n"
    "  mov %rax, (%rdi)\n  lea 8(%rdi), %rdi\n"
    ".endr\n"
    "  add $16, %rsp\n"
    "  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbp\n  pop %rbx\n"
    "  ret\n"
    ".size ctbn_adx_mont_mul8, .-ctbn_adx_mont_mul8\n"
    ".purgem CTBN_ADX8_ROW\n"
    ".purgem CTBN_ADX8_ROWB\n"
    ".purgem CTBN_ADX8_ROWM\n");
/* clang-format on */

#endif
