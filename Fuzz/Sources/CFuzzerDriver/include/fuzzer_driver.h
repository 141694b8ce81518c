// libFuzzer's driver, called from Swift's main (libFuzzer's own main would clash with the one
// SwiftPM gives every executable). Defined in libclang_rt.fuzzer_no_main, linked by Fuzz/run.sh.
#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
