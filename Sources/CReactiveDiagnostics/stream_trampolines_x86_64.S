// The stubs and trampolines of stream_hook.c (x86_64, Linux): one stub per interposed runtime
// entry point (stream_hook_stubs.h) loads its id and jumps to a trampoline that works for any
// signature: it saves every argument register, asks rdiag_stream_hook_pre where to go (the
// real function, or rdiag_stream_skip_return to drop the call) and goes there with the
// registers as they were. The trampolines keep an rbp frame with CFI, so that stacks captured
// in the hook unwind through them to the app's call site.
// x86_64 SysV + swiftcc: args rdi rsi rdx rcx r8 r9 + xmm0-7, swiftself r13,
// swifterror r12, swiftasync r14, indirect result rax.
#if defined(__linux__) && defined(__x86_64__)

// Frame (offsets from %rsp after `sub $352`), must match rdiag_stream_registers in stream_hook.c
//   0 rdi  8 rsi 16 rdx 24 rcx 32 r8 40 r9 48 rax 56 r10 64 r12 72 r13 80 r14
//  88 id  96 return address (app call site) 104 target 112 flags 120 pad
// 128..255 xmm0-7 ; 256 ret rax 264 ret rdx 272 ret rcx 280 ret r8 ; 288..351 ret xmm0-3
#define FRAME 352

.macro RDIAG_SAVE_ARGUMENTS
  mov %rdi,0(%rsp);  mov %rsi,8(%rsp);  mov %rdx,16(%rsp); mov %rcx,24(%rsp)
  mov %r8,32(%rsp);  mov %r9,40(%rsp);  mov %rax,48(%rsp); mov %r10,56(%rsp)
  mov %r12,64(%rsp); mov %r13,72(%rsp); mov %r14,80(%rsp)
  mov %r11,88(%rsp)
  mov 8(%rbp),%r11;  mov %r11,96(%rsp)
  movq $0,112(%rsp)
  movdqa %xmm0,128(%rsp); movdqa %xmm1,144(%rsp); movdqa %xmm2,160(%rsp); movdqa %xmm3,176(%rsp)
  movdqa %xmm4,192(%rsp); movdqa %xmm5,208(%rsp); movdqa %xmm6,224(%rsp); movdqa %xmm7,240(%rsp)
.endm
.macro RDIAG_RESTORE_ARGUMENTS
  mov 0(%rsp),%rdi;  mov 8(%rsp),%rsi;  mov 16(%rsp),%rdx; mov 24(%rsp),%rcx
  mov 32(%rsp),%r8;  mov 40(%rsp),%r9;  mov 48(%rsp),%rax; mov 56(%rsp),%r10
  mov 64(%rsp),%r12; mov 72(%rsp),%r13; mov 80(%rsp),%r14
  movdqa 128(%rsp),%xmm0; movdqa 144(%rsp),%xmm1; movdqa 160(%rsp),%xmm2; movdqa 176(%rsp),%xmm3
  movdqa 192(%rsp),%xmm4; movdqa 208(%rsp),%xmm5; movdqa 224(%rsp),%xmm6; movdqa 240(%rsp),%xmm7
.endm

  .text
// Pre-hook only, then tail-jump: works for ANY signature (stack args untouched).
  .p2align 4
  .globl rdiag_stream_tramp_pre
  .hidden rdiag_stream_tramp_pre
  .type rdiag_stream_tramp_pre,@function
rdiag_stream_tramp_pre:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp,-16
  mov %rsp,%rbp
  .cfi_def_cfa_register %rbp
  sub $FRAME,%rsp
  RDIAG_SAVE_ARGUMENTS
  mov %rsp,%rdi
  call rdiag_stream_hook_pre            // returns the address to jump to
  mov %rax,%r11
  RDIAG_RESTORE_ARGUMENTS
  leave
  .cfi_def_cfa %rsp,8
  jmp *%r11
  .cfi_endproc
  .size rdiag_stream_tramp_pre,.-rdiag_stream_tramp_pre

// Pre + post hook: CALLS the target, so it is only valid for functions that
// take no stack arguments (true for yield/init below: <= 4 GPR args).
  .p2align 4
  .globl rdiag_stream_tramp_post
  .hidden rdiag_stream_tramp_post
  .type rdiag_stream_tramp_post,@function
rdiag_stream_tramp_post:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp,-16
  mov %rsp,%rbp
  .cfi_def_cfa_register %rbp
  sub $FRAME,%rsp
  RDIAG_SAVE_ARGUMENTS
  mov %rsp,%rdi
  call rdiag_stream_hook_pre
  mov %rax,104(%rsp)
  RDIAG_RESTORE_ARGUMENTS
  call *104(%rsp)
  mov %rax,256(%rsp); mov %rdx,264(%rsp); mov %rcx,272(%rsp); mov %r8,280(%rsp)
  movdqa %xmm0,288(%rsp); movdqa %xmm1,304(%rsp); movdqa %xmm2,320(%rsp); movdqa %xmm3,336(%rsp)
  mov %rsp,%rdi
  call rdiag_stream_hook_post           // C callee-saved: r12 (swifterror), r13, r14 survive
  mov 256(%rsp),%rax; mov 264(%rsp),%rdx; mov 272(%rsp),%rcx; mov 280(%rsp),%r8
  movdqa 288(%rsp),%xmm0; movdqa 304(%rsp),%xmm1; movdqa 320(%rsp),%xmm2; movdqa 336(%rsp),%xmm3
  leave
  .cfi_def_cfa %rsp,8
  ret
  .cfi_endproc
  .size rdiag_stream_tramp_post,.-rdiag_stream_tramp_post

// Used to skip a call (second CheckedContinuation resume): returns Void.
  .p2align 4
  .globl rdiag_stream_skip_return
  .hidden rdiag_stream_skip_return
  .type rdiag_stream_skip_return,@function
rdiag_stream_skip_return:
  ret
  .size rdiag_stream_skip_return,.-rdiag_stream_skip_return

// One stub per interposed symbol: load hook id in r11 (scratch in swiftcc), jump.
#ifndef RDIAG_NO_STREAM_STUBS
#define RDIAG_STREAM_STUB(sym, id, common) \
  .p2align 4; .globl sym; .type sym,@function; sym: mov $id,%r11d; jmp common; .size sym,.-sym

#include "stream_hook_stubs.h"
#endif

#endif
  .section .note.GNU-stack,"",@progbits
