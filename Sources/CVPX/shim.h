// libvpx: VP8 encoder and decoder.
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <vpx/vpx_image.h>

// vpx_codec_enc_init / vpx_codec_dec_init are macros over the *_ver functions with ABI
// version macros Swift cannot import; these forwarders pass them for the VP8 interfaces.
static inline vpx_codec_err_t CVPX_vp8_encoder_init(vpx_codec_ctx_t *ctx,
                                                   const vpx_codec_enc_cfg_t *cfg,
                                                   vpx_codec_flags_t flags) {
    return vpx_codec_enc_init_ver(ctx, vpx_codec_vp8_cx(), cfg, flags, VPX_ENCODER_ABI_VERSION);
}
static inline vpx_codec_err_t CVPX_vp8_decoder_init(vpx_codec_ctx_t *ctx,
                                                   const vpx_codec_dec_cfg_t *cfg,
                                                   vpx_codec_flags_t flags) {
    return vpx_codec_dec_init_ver(ctx, vpx_codec_vp8_dx(), cfg, flags, VPX_DECODER_ABI_VERSION);
}
// vpx_codec_control is a macro over variadic vpx_codec_control_; typed int forwarders.
static inline vpx_codec_err_t CVPX_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}
static inline vpx_codec_err_t CVPX_control_int_ptr(vpx_codec_ctx_t *ctx, int id, int *value) {
    return vpx_codec_control_(ctx, id, value);
}
