// The soak's switch: runs before `main`, so before the test runner discovers or starts any
// test, without a line of the framework's test sources changed.
#include "SoakStart.h"

__attribute__((constructor)) static void reactive_diagnostics_soak_constructor(void) {
    reactive_diagnostics_soak_start();
}
