#ifndef SHOEBOX_CHEIF_SHIM_H
#define SHOEBOX_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
