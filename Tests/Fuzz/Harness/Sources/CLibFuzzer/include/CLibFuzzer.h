#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

// Defined by the libFuzzer runtime that `-sanitize=fuzzer` links.

/// libFuzzer's own mutation of `data` in place (at most `max_size` bytes); returns the new size.
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/// Runs libFuzzer with its command line, calling `callback` for each input. The harness calls
/// it from its own `main`: SwiftPM gives every executable a `main` of its own, which would
/// otherwise take the place of libFuzzer's.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
