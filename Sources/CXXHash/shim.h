#ifndef SHOEBOX_CXXHASH_SHIM_H
#define SHOEBOX_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
