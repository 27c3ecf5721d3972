// peak-rss OUTPUT COMMAND [ARGUMENT...]: runs COMMAND with this process's environment, standard
// input and outputs, waits for it, writes its peak resident memory in bytes (wait4's
// ru_maxrss) on the first line of the file OUTPUT and the CPU time it used (user + system, in
// microseconds) on the second, and exits with its status (128 + the signal that ended it).
//
// Why a process of its own: at exec, Linux folds the high-water mark of the address space a
// child was forked from into the child's ru_maxrss. A benchmark of a few hundred megabytes that
// spawned the test process itself would see at least its own size; this helper is small.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int signal_default(int number) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    action.sa_handler = SIG_DFL;
    return sigaction(number, &action, NULL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: peak-rss OUTPUT COMMAND [ARGUMENT...]\n");
        return 2;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("peak-rss: fork");
        return 2;
    }
    if (child == 0) {
        // The default signal mask and dispositions: a helper started from a dispatch worker
        // thread inherits that thread's blocked signals, which the command must not.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int number = 1; number < NSIG; number++) {
            if (number != SIGKILL && number != SIGSTOP) {
                (void)signal_default(number);
            }
        }
        execvp(argv[2], argv + 2);
        perror("peak-rss: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("peak-rss: wait4");
            return 2;
        }
    }
    FILE *output = fopen(argv[1], "w");
    if (output != NULL) {
#if defined(__APPLE__)
        fprintf(output, "%ld\n", (long)usage.ru_maxrss);   // bytes on Darwin
#else
        fprintf(output, "%ld\n", (long)usage.ru_maxrss * 1024L);   // kilobytes on Linux
#endif
        long long cpu = ((long long)usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL
            + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
        fprintf(output, "%lld\n", cpu);
        fclose(output);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
