#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>  // exit(3) for the targets

// libFuzzer's driver (compiler-rt FuzzerInterface.h). SwiftPM on Linux links executables with
// `main=<Module>_main`, so the targets keep their own main.swift and hand control to libFuzzer here
// (each also exports LLVMFuzzerTestOneInput, so whichever `main` the linker keeps runs the same callback).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
