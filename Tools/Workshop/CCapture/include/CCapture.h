// The capture layer's C entry points the benchmarks measure. They are defined in the root
// package's CReactiveDiagnostics, linked into the benchmark through the engine; declared here
// because another package can depend on products only.
#ifndef CCAPTURE_H
#define CCAPTURE_H

/// Raw return addresses through libunwind (`unw_backtrace`).
int rdiag_backtrace(void *_Nonnull *_Nonnull buffer, int depth);
/// Raw return addresses along the frame pointers libunwind confirmed, libunwind elsewhere.
int rdiag_capture_stack(void *_Nonnull *_Nonnull buffer, int depth);
/// Raw return addresses along frame pointers only.
int rdiag_frame_pointer_walk(void *_Nonnull *_Nonnull buffer, int depth);
/// Adds `delta` to the stream hook's count of open tests (it looks at calls only above 0).
void rdiag_stream_hook_tests(int delta);

/// Bytes in use on the heap (glibc's `mallinfo2().uordblks`; 0 elsewhere): defined in
/// CCapture.c, the benchmark's own.
unsigned long rd_benchmark_heap_in_use(void);

#endif
