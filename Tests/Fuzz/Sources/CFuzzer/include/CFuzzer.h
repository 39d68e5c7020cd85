// CFuzzer: declares libFuzzer's driver entry point, so a Swift executable can hand it its callback.
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line and the function that tests one input (libFuzzer >= 11).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
