// The declaration in include/CLibFuzzer.h is defined by the libFuzzer runtime.
