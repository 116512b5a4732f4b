/*
 * int ctrsa_call_on_stack(void *arg, int (*fn)(void *), void *top, void **left)
 *
 * Stores in *left the stack pointer it leaves (everything at and above it belongs to the
 * caller), calls fn(arg) with the stack pointer at top and returns fn's value, the caller's
 * stack pointer restored. top is the (exclusive) high end of a stack the caller owns,
 * 16-byte aligned; fn's frames are below it. Standard AAPCS64: arg in x0 (passed on
 * unchanged), fn in x1, top in x2, left in x3, the result in w0. The caller's stack pointer is kept in x29 (the frame
 * pointer, callee-saved), so fn returns to it; x29 and x30 are saved on the caller's stack
 * as a standard frame record, so unwinders walk from fn's frames back to the caller's. The
 * caller-saved general registers x1-x17 are zeroed on the way in and out (x0 carries the
 * argument in and the result out; vector registers are the caller's to clear).
 * CT: no data-dependent branch or access; what fn does is fn's.
 */
        .text
        .globl  ctrsa_call_on_stack
        .hidden ctrsa_call_on_stack
        .type   ctrsa_call_on_stack, %function
        .p2align 2
ctrsa_call_on_stack:
        .cfi_startproc
        hint    #34                     /* BTI c: a no-op where BTI is absent */
        stp     x29, x30, [sp, #-16]!
        .cfi_def_cfa_offset 16
        .cfi_offset x29, -16
        .cfi_offset x30, -8
        mov     x29, sp
        .cfi_def_cfa_register x29
        str     x29, [x3]
        mov     sp, x2
        mov     x16, x1
        /* fn gets arg and nothing else of the caller's scratch registers, and the caller
         * gets fn's result and nothing else of fn's: no value (a limb of a key) crosses */
        mov     x1, xzr
        mov     x2, xzr
        mov     x3, xzr
        mov     x4, xzr
        mov     x5, xzr
        mov     x6, xzr
        mov     x7, xzr
        mov     x8, xzr
        mov     x9, xzr
        mov     x10, xzr
        mov     x11, xzr
        mov     x12, xzr
        mov     x13, xzr
        mov     x14, xzr
        mov     x15, xzr
        mov     x17, xzr
        blr     x16
        mov     w0, w0
        mov     x1, xzr
        mov     x2, xzr
        mov     x3, xzr
        mov     x4, xzr
        mov     x5, xzr
        mov     x6, xzr
        mov     x7, xzr
        mov     x8, xzr
        mov     x9, xzr
        mov     x10, xzr
        mov     x11, xzr
        mov     x12, xzr
        mov     x13, xzr
        mov     x14, xzr
        mov     x15, xzr
        mov     x16, xzr
        mov     x17, xzr
        mov     sp, x29
        .cfi_def_cfa sp, 16
        ldp     x29, x30, [sp], #16
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   ctrsa_call_on_stack, .-ctrsa_call_on_stack

        .section .note.GNU-stack,"",%progbits

/* Built with branch protection (-mbranch-protection), say so: the linker marks ctrsa.so
 * BTI/PAC only if every object carries the note. BTI c is above; the function makes no
 * indirect return through a signed address (x30 is saved and restored unchanged). */
#if defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT)
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define PROPERTY_BTI 1
#else
#define PROPERTY_BTI 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT)
#define PROPERTY_PAC 2
#else
#define PROPERTY_PAC 0
#endif
        .pushsection .note.gnu.property, "a"
        .balign 8
        .long   4                       /* name size */
        .long   16                      /* descriptor size */
        .long   5                       /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .long   0xc0000000              /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
        .long   4
        .long   (PROPERTY_BTI | PROPERTY_PAC)
        .long   0
        .popsection
#endif
