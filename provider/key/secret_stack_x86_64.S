/*
 * int ctrsa_call_on_stack(void *arg, int (*fn)(void *), void *top, void **left)
 *
 * Stores in *left the stack pointer it leaves (16-byte aligned; everything at and above it
 * belongs to the caller), calls fn(arg) with the stack pointer at top and returns fn's
 * value, the caller's stack pointer restored. top is the (exclusive) high end of a stack
 * the caller owns, 16-byte aligned; fn's frames are below it. Standard x86-64 System V ABI:
 * arg in %rdi (passed on unchanged), fn in %rsi, top in %rdx, left in %rcx, the result in
 * %eax. The caller's stack pointer is
 * kept in %rbp, callee-saved, so fn returns to it; %rbp's own value is saved on the
 * caller's stack. The frame is a standard %rbp frame, so unwinders and debuggers walk from
 * fn's frames back to the caller's. The caller-saved general registers other than the
 * argument and the result are zeroed on the way in and out (vector registers are the
 * caller's to clear: ctbn_clear_vector_regs).
 * CT: no data-dependent branch or access; what fn does is fn's.
 */
#if defined(__CET__)
#include <cet.h>
#else
#define _CET_ENDBR
#endif

        .text
        .globl  ctrsa_call_on_stack
        .hidden ctrsa_call_on_stack
        .type   ctrsa_call_on_stack, @function
        .p2align 4
ctrsa_call_on_stack:
        .cfi_startproc
        _CET_ENDBR
        pushq   %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        movq    %rsp, (%rcx)
        movq    %rdx, %rsp
        movq    %rsi, %rax
        /* fn gets arg and nothing else of the caller's scratch registers, and the caller
         * gets fn's result and nothing else of fn's: no value (a limb of a key) crosses */
        xorl    %esi, %esi
        xorl    %edx, %edx
        xorl    %ecx, %ecx
        xorl    %r8d, %r8d
        xorl    %r9d, %r9d
        xorl    %r10d, %r10d
        xorl    %r11d, %r11d
        callq   *%rax
        movl    %eax, %eax
        xorl    %ecx, %ecx
        xorl    %edx, %edx
        xorl    %esi, %esi
        xorl    %edi, %edi
        xorl    %r8d, %r8d
        xorl    %r9d, %r9d
        xorl    %r10d, %r10d
        xorl    %r11d, %r11d
        movq    %rbp, %rsp
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size   ctrsa_call_on_stack, .-ctrsa_call_on_stack

        .section .note.GNU-stack,"",@progbits
