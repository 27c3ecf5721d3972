// A child's peak memory, read just before it exits. On Linux, the peak the kernel reports for
// a child (wait4's ru_maxrss) also counts the memory of the process it was spawned from: at
// exec the kernel folds the high-water mark of the pre-exec address space (with posix_spawn,
// the parent's) into the child's. The child's own high-water mark (VmHWM in
// /proc/<pid>/status) is exact, but gone once it has exited; a ptrace exit stop holds it there.
#include "CReactiveDiagnosticsProcess.h"

#include <errno.h>

#if defined(__linux__)
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int rdiag_trace_exit(pid_t pid) {
    // PTRACE_SEIZE (unlike ATTACH) does not stop the child, and reports no other event.
    return ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)PTRACE_O_TRACEEXIT) == 0 ? 0 : errno;
}

int rdiag_is_exit_stop(int status) {
    return WIFSTOPPED(status) && (status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8));
}

int rdiag_resume(pid_t pid, int signal) {
    return ptrace(PTRACE_CONT, pid, 0, (void *)(long)signal) == 0 ? 0 : errno;
}
#else
int rdiag_trace_exit(pid_t pid) {
    (void)pid;
    return ENOSYS;
}

int rdiag_is_exit_stop(int status) {
    (void)status;
    return 0;
}

int rdiag_resume(pid_t pid, int signal) {
    (void)pid;
    (void)signal;
    return ENOSYS;
}
#endif
