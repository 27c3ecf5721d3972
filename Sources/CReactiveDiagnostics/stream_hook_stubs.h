// The runtime entry points stream_hook.c interposes (Swift 6.3, libswift_Concurrency), one line
// each: the mangled name, its id (enum rdiag_stream_api in CReactiveDiagnostics.h: keep the two
// in the same order) and the trampoline its stub jumps to. rdiag_stream_tramp_post calls the
// real function and must only be used for one that takes no stack-passed arguments.
// Included by the trampolines (the stubs) and by stream_hook.c (the names it resolves).
RDIAG_STREAM_STUB("$sScS12ContinuationV5yieldyAB11YieldResultOyx__GxnF", 0, rdiag_stream_tramp_post)
RDIAG_STREAM_STUB("$sScS12ContinuationV5yield4withAB11YieldResultOyx__Gs0E0Oyxs5NeverOG_tF", 1, rdiag_stream_tramp_post)
RDIAG_STREAM_STUB("$sScS12ContinuationV5yieldAB11YieldResultOyyt__GyytRszlF", 2, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScS12ContinuationV6finishyyF", 3, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScs12ContinuationV5yieldyAB11YieldResultOyxq___GxnF", 4, rdiag_stream_tramp_post)
RDIAG_STREAM_STUB("$sScs12ContinuationV5yield4withAB11YieldResultOyxs5Error_p__Gs0E0OyxsAG_pG_tsAG_pRs_rlF", 5, rdiag_stream_tramp_post)
RDIAG_STREAM_STUB("$sScs12ContinuationV5yieldAB11YieldResultOyytq___GyytRszrlF", 6, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScs12ContinuationV6finish8throwingyq_Sgn_tF", 7, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScC6resume9returningyxn_tF", 8, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScC6resume8throwingyq_n_tF", 9, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScC12continuation8functionScCyxq_GSccyxq_G_SStcfC", 10, rdiag_stream_tramp_post)
RDIAG_STREAM_STUB("$sScS17makeAsyncIteratorScS0C0Vyx_GyF", 11, rdiag_stream_tramp_pre)
RDIAG_STREAM_STUB("$sScs17makeAsyncIteratorScs0C0Vyxq__GyF", 12, rdiag_stream_tramp_pre)
