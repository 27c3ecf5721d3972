// The arm64 twin of stream_trampolines_x86_64.S (AAPCS64 + swiftcc): arguments x0-x7 and
// v0-v7, swiftself x20, swifterror x21, swiftasync x22, indirect result x8, return address x30.
// UNTESTED: written from the x86_64 version and assembled (clang --target=aarch64-linux-gnu -c),
// never run; no arm64 Linux machine has run the stream hooks yet.
#if defined(__linux__) && defined(__aarch64__)
// Frame (from sp after `sub sp, sp, #352`), must match rdiag_stream_registers (arm64) in stream_hook.c
//   0..63 x0-x7  64 x8  72 x20  80 x21  88 x22  96 id  104 return address  112 target  120 flags
//   128..255 q0-q7   256..287 ret x0-x3   288..351 ret q0-q3
.macro RDIAG_SAVE_ARGUMENTS
  stp x0, x1, [sp, #0]
  stp x2, x3, [sp, #16]
  stp x4, x5, [sp, #32]
  stp x6, x7, [sp, #48]
  stp x8, x20, [sp, #64]
  stp x21, x22, [sp, #80]
  str x9, [sp, #96]
  str x30, [sp, #104]
  str xzr, [sp, #120]
  stp q0, q1, [sp, #128]
  stp q2, q3, [sp, #160]
  stp q4, q5, [sp, #192]
  stp q6, q7, [sp, #224]
.endm
.macro RDIAG_RESTORE_ARGUMENTS
  ldp x0, x1, [sp, #0]
  ldp x2, x3, [sp, #16]
  ldp x4, x5, [sp, #32]
  ldp x6, x7, [sp, #48]
  ldp x8, x20, [sp, #64]
  ldp x21, x22, [sp, #80]
  ldp q0, q1, [sp, #128]
  ldp q2, q3, [sp, #160]
  ldp q4, q5, [sp, #192]
  ldp q6, q7, [sp, #224]
.endm

  .text
  .p2align 4
  .globl rdiag_stream_tramp_pre
  .hidden rdiag_stream_tramp_pre
  .type rdiag_stream_tramp_pre, %function
rdiag_stream_tramp_pre:
  .cfi_startproc
  stp x29, x30, [sp, #-16]!
  .cfi_def_cfa_offset 16
  .cfi_offset x29, -16
  .cfi_offset x30, -8
  mov x29, sp
  .cfi_def_cfa w29, 16
  sub sp, sp, #352
  RDIAG_SAVE_ARGUMENTS
  mov x0, sp
  bl rdiag_stream_hook_pre
  mov x16, x0
  RDIAG_RESTORE_ARGUMENTS
  mov sp, x29
  ldp x29, x30, [sp], #16
  .cfi_def_cfa sp, 0
  br x16
  .cfi_endproc
  .size rdiag_stream_tramp_pre, .-rdiag_stream_tramp_pre

  .p2align 4
  .globl rdiag_stream_tramp_post
  .hidden rdiag_stream_tramp_post
  .type rdiag_stream_tramp_post, %function
rdiag_stream_tramp_post:                    // only for targets without stack-passed arguments
  .cfi_startproc
  stp x29, x30, [sp, #-16]!
  .cfi_def_cfa_offset 16
  .cfi_offset x29, -16
  .cfi_offset x30, -8
  mov x29, sp
  .cfi_def_cfa w29, 16
  sub sp, sp, #352
  RDIAG_SAVE_ARGUMENTS
  mov x0, sp
  bl rdiag_stream_hook_pre
  str x0, [sp, #112]
  RDIAG_RESTORE_ARGUMENTS
  ldr x16, [sp, #112]
  blr x16
  stp x0, x1, [sp, #256]
  stp x2, x3, [sp, #272]
  stp q0, q1, [sp, #288]
  stp q2, q3, [sp, #320]
  mov x0, sp
  bl rdiag_stream_hook_post                 // x19-x28 (x20 self, x21 error, x22 async) are callee-saved
  ldp x0, x1, [sp, #256]
  ldp x2, x3, [sp, #272]
  ldp q0, q1, [sp, #288]
  ldp q2, q3, [sp, #320]
  mov sp, x29
  ldp x29, x30, [sp], #16
  .cfi_def_cfa sp, 0
  ret
  .cfi_endproc
  .size rdiag_stream_tramp_post, .-rdiag_stream_tramp_post

  .p2align 2
  .globl rdiag_stream_skip_return
  .hidden rdiag_stream_skip_return
  .type rdiag_stream_skip_return, %function
rdiag_stream_skip_return:
  ret
  .size rdiag_stream_skip_return, .-rdiag_stream_skip_return

#ifndef RDIAG_NO_STREAM_STUBS
// x9 is a temporary register, never an argument register in swiftcc
#define RDIAG_STREAM_STUB(sym, id, common) \
  .p2align 2 ; .globl sym ; .type sym, %function ; sym: mov x9, id ; b common ; .size sym, .-sym
#include "stream_hook_stubs.h"
#endif
#endif
  .section .note.GNU-stack,"",%progbits
