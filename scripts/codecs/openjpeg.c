/*
 * OpenJPEG (JPEG 2000 Part 1) behind the shim interface of shim.h. A J2K
 * codestream or a JP2 file is read from memory; the decoder is given no file
 * and no threads.
 */
#include <stdlib.h>
#include <string.h>

#include "openjpeg.h"
#include "shim.h"

static struct shim_result result;

EXPORT("result") struct shim_result *shim_result(void) { return &result; }

struct source {
	const uint8_t *data;
	OPJ_SIZE_T len, pos;
};

static OPJ_SIZE_T src_read(void *buf, OPJ_SIZE_T n, void *user) {
	struct source *s = user;
	if (s->pos >= s->len) return (OPJ_SIZE_T)-1;
	if (n > s->len - s->pos) n = s->len - s->pos;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return n;
}

static OPJ_OFF_T src_skip(OPJ_OFF_T n, void *user) {
	struct source *s = user;
	if (n < 0) return -1;
	if ((OPJ_SIZE_T)n > s->len - s->pos) n = (OPJ_OFF_T)(s->len - s->pos);
	s->pos += (OPJ_SIZE_T)n;
	return n;
}

static OPJ_BOOL src_seek(OPJ_OFF_T n, void *user) {
	struct source *s = user;
	if (n < 0 || (OPJ_SIZE_T)n > s->len) return OPJ_FALSE;
	s->pos = (OPJ_SIZE_T)n;
	return OPJ_TRUE;
}

/* Whether the tiles' coding style applies the multiple component transform. */
static uint32_t nc_has_mct(const opj_codestream_info_v2_t *info, uint32_t comps) {
	return comps >= 3 && info->m_default_tile_info.mct != 0;
}

static void quiet(const char *msg, void *user) { (void)msg; (void)user; }

EXPORT("decode") int decode(const uint8_t *in, uint32_t len, uint32_t want_w, uint32_t want_h, uint32_t want_comps) {
	static const uint8_t jp2_magic[] = {0, 0, 0, 12, 'j', 'P', ' ', ' '};
	memset(&result, 0, sizeof result);
	if (len < 4) return SHIM_BAD_INPUT;
	OPJ_CODEC_FORMAT format = (len >= 8 && memcmp(in, jp2_magic, 8) == 0) ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K;
	if (format == OPJ_CODEC_J2K && !(in[0] == 0xFF && in[1] == 0x4F)) return SHIM_BAD_INPUT;

	struct source src = {in, len, 0};
	opj_stream_t *stream = opj_stream_create(64 << 10, OPJ_TRUE);
	if (!stream) return SHIM_NO_MEMORY;
	opj_stream_set_user_data(stream, &src, NULL);
	opj_stream_set_user_data_length(stream, len);
	opj_stream_set_read_function(stream, src_read);
	opj_stream_set_skip_function(stream, src_skip);
	opj_stream_set_seek_function(stream, src_seek);

	int rc = SHIM_BAD_INPUT;
	opj_image_t *img = NULL;
	opj_codec_t *codec = opj_create_decompress(format);
	opj_dparameters_t params;
	opj_set_default_decoder_parameters(&params);
	if (!codec) { rc = SHIM_NO_MEMORY; goto done; }
	opj_set_info_handler(codec, quiet, NULL);
	opj_set_warning_handler(codec, quiet, NULL);
	opj_set_error_handler(codec, quiet, NULL);
	/* Strict: a truncated codestream is an error, not a partial image. */
	if (!opj_setup_decoder(codec, &params) || !opj_decoder_set_strict_mode(codec, OPJ_TRUE) || !opj_read_header(stream, codec, &img)) goto done;

	/* The header must describe the frame DICOM declared before anything is decoded. */
	uint32_t w = img->x1 - img->x0, h = img->y1 - img->y0;
	rc = SHIM_MISMATCH;
	if (img->x1 < img->x0 || img->y1 < img->y0 || w != want_w || h != want_h || img->numcomps != want_comps) goto done;
	for (uint32_t c = 0; c < img->numcomps; c++) {
		opj_image_comp_t *comp = &img->comps[c];
		if (comp->dx != 1 || comp->dy != 1) { rc = SHIM_UNSUPPORTED; goto done; }
		if (comp->prec < 1 || comp->prec > 16 || comp->prec != img->comps[0].prec || comp->sgnd != img->comps[0].sgnd) { rc = SHIM_UNSUPPORTED; goto done; }
	}
	uint32_t mct = 0;
	opj_codestream_info_v2_t *info = opj_get_cstr_info(codec);
	if (info) {
		mct = nc_has_mct(info, img->numcomps);
		opj_destroy_cstr_info(&info);
	}
	rc = SHIM_DECODE;
	if (!opj_decode(codec, stream, img) || !opj_end_decompress(codec, stream)) goto done;
	for (uint32_t c = 0; c < img->numcomps; c++) {
		opj_image_comp_t *comp = &img->comps[c];
		if (!comp->data || comp->w != w || comp->h != h) goto done;
	}

	uint32_t prec = img->comps[0].prec, bps = prec <= 8 ? 1 : 2, n = w * h, nc = img->numcomps;
	uint8_t *out = malloc((size_t)n * nc * bps);
	if (!out) { rc = SHIM_NO_MEMORY; goto done; }
	for (uint32_t c = 0; c < nc; c++) {
		const OPJ_INT32 *d = img->comps[c].data;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = (uint32_t)d[i];
			if (bps == 1) {
				out[i * nc + c] = (uint8_t)v;
			} else {
				out[2 * (i * nc + c)] = (uint8_t)v;
				out[2 * (i * nc + c) + 1] = (uint8_t)(v >> 8);
			}
		}
	}
	result.width = w;
	result.height = h;
	result.components = nc;
	result.precision = prec;
	result.is_signed = img->comps[0].sgnd ? 1 : 0;
	result.out_ptr = (uint32_t)(uintptr_t)out;
	result.out_len = n * nc * bps;
	/* OpenJPEG applies the inverse ICT or RCT the COD marker asks for. */
	result.colour_transform = mct;
	rc = SHIM_OK;
done:
	if (img) opj_image_destroy(img);
	if (codec) opj_destroy_codec(codec);
	opj_stream_destroy(stream);
	return rc;
}
