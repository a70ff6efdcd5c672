/*
 * Stands in for the osconfig.h DCMTK's CMake writes: what the IJG and CharLS
 * copies in DCMTK read of it, for wasm32-wasi (wasi-libc, clang).
 */
#ifndef MEDISHARE_OSCONFIG_H
#define MEDISHARE_OSCONFIG_H
#define HAVE_C_CONST 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDDEF_H 1
#define HAVE_SYS_TYPES_H 1
#define C_INLINE inline
#endif
