// The few system calls of child-process handling that Swift cannot call directly (ptrace is
// variadic in C). Not API: used by _ReactiveDiagnosticsProcess only.
#ifndef CREACTIVEDIAGNOSTICSPROCESS_H
#define CREACTIVEDIAGNOSTICSPROCESS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Starts tracing `pid` (a child of the calling thread's process) only to be told, by a stop,
/// when it is about to exit, while its memory is still mapped. The calling thread becomes the
/// tracer: it must be the one that waits for the child and resumes it. Returns 0, or the
/// errno of the refusal (EPERM where tracing is not allowed). Linux only (ENOSYS elsewhere).
int rdiag_trace_exit(pid_t pid);

/// Whether a wait status is the stop `rdiag_trace_exit` asked for (the child is exiting).
int rdiag_is_exit_stop(int status);

/// Resumes a stopped traced child, delivering `signal` (0 for none). Returns 0 or an errno.
int rdiag_resume(pid_t pid, int signal);

#ifdef __cplusplus
}
#endif

#endif
