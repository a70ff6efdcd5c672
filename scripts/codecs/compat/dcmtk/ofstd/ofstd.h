/* Stands in for DCMTK's ofstd.h: CharLS wants size_t from it. */
#include <stddef.h>
