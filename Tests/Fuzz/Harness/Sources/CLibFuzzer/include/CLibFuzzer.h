#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's own mutation of `data` in place (at most `max_size` bytes); returns the new size.
/// Defined by the libFuzzer runtime that `-sanitize=fuzzer` links.
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#endif
