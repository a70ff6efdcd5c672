/*
 * The interface every MediShare decoder module exports to the Go side
 * (internal/medimg/codec). The host copies a compressed frame into memory it
 * got from malloc, calls decode with the frame and the size the DICOM header
 * declares, and on success reads the result below: samples of each pixel
 * together, little endian, one byte each when the precision is 8 bits or
 * less and two otherwise (signed values as two's complement).
 */
#ifndef MEDISHARE_SHIM_H
#define MEDISHARE_SHIM_H

#include <stdint.h>

#define EXPORT(name) __attribute__((export_name(name)))

/* decode's answers. Anything that is not OK means "no preview". */
enum {
	SHIM_OK = 0,
	SHIM_BAD_INPUT = 1,    /* the codestream does not parse */
	SHIM_MISMATCH = 2,     /* its size or components differ from the header's */
	SHIM_UNSUPPORTED = 3,  /* a valid stream this build does not render */
	SHIM_NO_MEMORY = 4,    /* malloc failed: the sandbox's memory cap */
	SHIM_DECODE = 5        /* the decoder failed part way */
};

/* What decode found, read by the host at result(). */
struct shim_result {
	uint32_t width, height, components, precision, is_signed;
	uint32_t out_ptr, out_len;
	uint32_t colour_transform; /* 1: the decoder turned YCbCr/ICT/RCT back into RGB */
};

#endif
