// libopus: Opus encoder and decoder.
#include <opus/opus.h>

// opus_encoder_ctl / opus_decoder_ctl are variadic, which Swift cannot call: these typed
// forwarders take one request code (OPUS_SET_*_REQUEST / OPUS_GET_*_REQUEST) each.
static inline int COpus_encoder_set(OpusEncoder *encoder, int request, opus_int32 value) {
    return opus_encoder_ctl(encoder, request, value);
}
static inline int COpus_encoder_get(OpusEncoder *encoder, int request, opus_int32 *value) {
    return opus_encoder_ctl(encoder, request, value);
}
static inline int COpus_decoder_set(OpusDecoder *decoder, int request, opus_int32 value) {
    return opus_decoder_ctl(decoder, request, value);
}
static inline int COpus_decoder_get(OpusDecoder *decoder, int request, opus_int32 *value) {
    return opus_decoder_ctl(decoder, request, value);
}
