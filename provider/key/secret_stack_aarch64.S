/*
 * int ctrsa_call_on_stack(void *arg, int (*fn)(void *), void *top)
 *
 * Calls fn(arg) with the stack pointer at top and returns fn's value, the caller's stack
 * pointer restored. top is the (exclusive) high end of a stack the caller owns, 16-byte
 * aligned; fn's frames are below it. Standard AAPCS64: arg in x0 (passed on unchanged), fn
 * in x1, top in x2, the result in w0. The caller's stack pointer is kept in x29 (the frame
 * pointer, callee-saved), so fn returns to it; x29 and x30 are saved on the caller's stack
 * as a standard frame record, so unwinders walk from fn's frames back to the caller's.
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
        mov     sp, x2
        blr     x1
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
