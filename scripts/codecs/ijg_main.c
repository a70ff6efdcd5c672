/*
 * The IJG module's exports: decode reads the frame's first SOF marker and
 * hands lossless frames (SOF3, SOF7, SOF11, SOF15) to the 16-bit build and
 * 12-bit lossy frames to the 12-bit one. 8-bit lossy JPEG is Go's own
 * decoder's, and is refused here.
 */
#include <stddef.h>
#include <string.h>

#include "shim.h"

struct shim_result ijg_result;

int ijg_decode12(const uint8_t *in, uint32_t len, uint32_t w, uint32_t h, uint32_t comps);
int ijg_decode16(const uint8_t *in, uint32_t len, uint32_t w, uint32_t h, uint32_t comps);

EXPORT("result") struct shim_result *shim_result(void) { return &ijg_result; }

EXPORT("decode") int decode(const uint8_t *in, uint32_t len, uint32_t w, uint32_t h, uint32_t comps) {
	memset(&ijg_result, 0, sizeof ijg_result);
	if (len < 4 || in[0] != 0xFF || in[1] != 0xD8) return SHIM_BAD_INPUT;
	for (uint32_t i = 2; i + 4 < len;) {
		if (in[i] != 0xFF) return SHIM_BAD_INPUT;
		uint8_t m = in[i + 1];
		if (m == 0xFF) { i++; continue; }
		if (m == 0xD8 || m == 0xD9 || m == 0xDA) return SHIM_BAD_INPUT; /* no frame header before the scan */
		if (m >= 0xD0 && m <= 0xD7) { i += 2; continue; }
		uint32_t seglen = ((uint32_t)in[i + 2] << 8) | in[i + 3];
		if (seglen < 2) return SHIM_BAD_INPUT;
		if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
			if (i + 4 >= len) return SHIM_BAD_INPUT;
			uint32_t prec = in[i + 4];
			if (m == 0xC3 || m == 0xC7 || m == 0xCB || m == 0xCF) return ijg_decode16(in, len, w, h, comps);
			if (prec == 12) return ijg_decode12(in, len, w, h, comps);
			return SHIM_UNSUPPORTED;
		}
		i += 2 + seglen;
	}
	return SHIM_BAD_INPUT;
}
