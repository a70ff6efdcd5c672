/*
 * DCMTK's IJG libjpeg 6b forks behind the shim interface of shim.h, compiled
 * twice: IJG_BITS 12 (12-bit lossy, process 2 and 4) and IJG_BITS 16 (the
 * lossless processes 14 and 15 at any precision up to 16). ijg_main.c picks
 * one by the frame's SOF marker. Errors trap: libjpeg's error_exit must not
 * return, and without setjmp in WebAssembly the trap ends the instance,
 * which the host reports as no preview.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#if IJG_BITS == 12
#include "jpeglib12.h"
#define DECODE ijg_decode12
#else
#include "jpeglib16.h"
#define DECODE ijg_decode16
#endif

extern struct shim_result ijg_result;

static void fail(j_common_ptr cinfo) { (void)cinfo; __builtin_trap(); }
static void say(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }
static void noop(j_decompress_ptr cinfo) { (void)cinfo; }
static int truncated;
static boolean fill(j_decompress_ptr cinfo) {
	/* Past the end: an EOI marker, as libjpeg's own sources do; the decoder
	 * would fill the rest with grey, but a damaged frame gets no preview. */
	truncated = 1;
	static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
	cinfo->src->next_input_byte = eoi;
	cinfo->src->bytes_in_buffer = 2;
	return TRUE;
}
static void skip(j_decompress_ptr cinfo, long n) {
	struct jpeg_source_mgr *s = cinfo->src;
	if (n <= 0) return;
	if ((size_t)n > s->bytes_in_buffer) {
		fill(cinfo);
		return;
	}
	s->next_input_byte += n;
	s->bytes_in_buffer -= (size_t)n;
}

int DECODE(const uint8_t *in, uint32_t len, uint32_t want_w, uint32_t want_h, uint32_t want_comps) {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	struct jpeg_source_mgr src;
	truncated = 0;
	memset(&cinfo, 0, sizeof cinfo);
	cinfo.err = jpeg_std_error(&jerr);
	jerr.error_exit = fail;
	jerr.emit_message = say;
	jpeg_create_decompress(&cinfo);
	src.next_input_byte = in;
	src.bytes_in_buffer = len;
	src.init_source = noop;
	src.fill_input_buffer = fill;
	src.skip_input_data = skip;
	src.resync_to_restart = jpeg_resync_to_restart;
	src.term_source = noop;
	cinfo.src = &src;
	if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) return SHIM_BAD_INPUT;
	if (cinfo.image_width != want_w || cinfo.image_height != want_h || (uint32_t)cinfo.num_components != want_comps) return SHIM_MISMATCH;
	if (cinfo.num_components != 1 && cinfo.num_components != 3) return SHIM_UNSUPPORTED;
	/* Samples as stored: DICOM's Photometric Interpretation says what they are. */
	cinfo.jpeg_color_space = cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_start_decompress(&cinfo);
	if (cinfo.output_width != want_w || cinfo.output_height != want_h || (uint32_t)cinfo.output_components != want_comps) return SHIM_MISMATCH;

	uint32_t prec = (uint32_t)cinfo.data_precision, bps = prec <= 8 ? 1 : 2, nc = want_comps;
	size_t row = (size_t)want_w * nc;
	uint8_t *out = malloc(row * want_h * bps);
	JSAMPARRAY line = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, (JDIMENSION)row, 1);
	if (!out) return SHIM_NO_MEMORY;
	while (cinfo.output_scanline < cinfo.output_height) {
		uint32_t y = cinfo.output_scanline;
		if (jpeg_read_scanlines(&cinfo, line, 1) != 1) return SHIM_DECODE;
		uint8_t *o = out + (size_t)y * row * bps;
		for (size_t i = 0; i < row; i++) {
			unsigned v = (unsigned)line[0][i];
			if (bps == 1) {
				o[i] = (uint8_t)v;
			} else {
				o[2 * i] = (uint8_t)v;
				o[2 * i + 1] = (uint8_t)(v >> 8);
			}
		}
	}
	jpeg_finish_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	if (truncated) return SHIM_DECODE; /* the frame ends early: no half image */
	ijg_result.width = want_w;
	ijg_result.height = want_h;
	ijg_result.components = nc;
	ijg_result.precision = prec;
	ijg_result.is_signed = 0;
	ijg_result.out_ptr = (uint32_t)(uintptr_t)out;
	ijg_result.out_len = (uint32_t)(row * want_h * bps);
	return SHIM_OK;
}
