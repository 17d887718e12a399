#ifndef QUIRE_COPUS_SHIM_H
#define QUIRE_COPUS_SHIM_H
#include <opus.h>

/// opus_encoder_ctl is variadic and its requests are macros (OPUS_SET_BITRATE(x) expands to a
/// request number and a type-checked argument); Swift can call neither, so these name the few
/// requests the audio plugin makes.
static inline int quire_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}

static inline int quire_opus_set_signal_voice(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
}

/// The encoder's delay in samples at its input rate (an Ogg Opus stream's pre-skip, scaled to 48 kHz).
static inline int quire_opus_get_lookahead(OpusEncoder *encoder, opus_int32 *lookahead) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(lookahead));
}
#endif
