// The helpers are static inline functions in include/kernel_support.h; this file only gives the
// target a translation unit.
#include "kernel_support.h"
