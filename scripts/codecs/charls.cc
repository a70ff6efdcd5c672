/*
 * DCMTK's CharLS (JPEG-LS, ITU-T T.87) behind the shim interface of shim.h.
 * The header is read first and must match the frame DICOM declared; the
 * decoder then writes into a buffer of exactly that size. CharLS's errors
 * trap (charls_prelude.h).
 */
#include <cstdlib>
#include <cstring>

#include "config.h"
#include "util.h"
#include "header.h"
#include "streams.h"

extern "C" {
#include "shim.h"
}

static shim_result result;

extern "C" EXPORT("result") shim_result *shim_result_ptr() { return &result; }

extern "C" EXPORT("decode") int decode(const uint8_t *in, uint32_t len, uint32_t want_w, uint32_t want_h, uint32_t want_comps) {
	std::memset(&result, 0, sizeof result);
	if (len < 4 || in[0] != 0xFF || in[1] != 0xD8) return SHIM_BAD_INPUT;
	JlsParameters info;
	{
		JLSInputStream header(in, len);
		header.ReadHeader();
		info = header.GetMetadata();
	}
	if (info.width != (int)want_w || info.height != (int)want_h || info.components != (int)want_comps) return SHIM_MISMATCH;
	if (info.bitspersample < 2 || info.bitspersample > 16 || (info.components != 1 && info.components != 3)) return SHIM_UNSUPPORTED;
	if (info.colorTransform != 0) return SHIM_UNSUPPORTED; /* HP's colour transforms: not in DICOM */
	const size_t bps = info.bitspersample <= 8 ? 1 : 2, n = (size_t)want_w * want_h, nc = want_comps, size = n * nc * bps;
	uint8_t *plane = static_cast<uint8_t *>(std::malloc(size));
	if (!plane) return SHIM_NO_MEMORY;
	JLSInputStream reader(in, len);
	reader.Read(plane, size);
	uint8_t *out = plane;
	if (nc > 1 && info.ilv == ILV_NONE) {
		/* One scan a component: planes one after another; the host wants pixels together. */
		out = static_cast<uint8_t *>(std::malloc(size));
		if (!out) return SHIM_NO_MEMORY;
		for (size_t c = 0; c < nc; c++)
			for (size_t i = 0; i < n; i++)
				std::memcpy(out + (i * nc + c) * bps, plane + (c * n + i) * bps, bps);
		std::free(plane);
	}
	result.width = want_w;
	result.height = want_h;
	result.components = want_comps;
	result.precision = (uint32_t)info.bitspersample;
	result.is_signed = 0;
	result.out_ptr = (uint32_t)(uintptr_t)out;
	result.out_len = (uint32_t)size;
	return SHIM_OK;
}
