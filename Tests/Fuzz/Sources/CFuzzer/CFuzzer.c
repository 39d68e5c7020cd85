// CFuzzer: no code; the header declares libFuzzer's LLVMFuzzerRunDriver, which the link provides.
#include "CFuzzer.h"
