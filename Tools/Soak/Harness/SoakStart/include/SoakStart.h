#ifndef SOAK_START_H
#define SOAK_START_H

/// Defined in Swift (`@_cdecl`) by the soak harness of the suite: switches the instrumentation
/// on for the whole test run, as `REACTIVE_DIAGNOSTICS_SOAK_MODE` says.
void reactive_diagnostics_soak_start(void);

#endif
