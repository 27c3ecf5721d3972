// Declarations only: see include/CCapture.h.
