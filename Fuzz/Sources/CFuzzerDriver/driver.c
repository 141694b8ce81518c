// Nothing to define: the target exists for its header (fuzzer_driver.h).
#include "fuzzer_driver.h"
