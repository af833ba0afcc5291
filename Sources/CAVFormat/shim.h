// libavformat (FFmpeg): the Matroska/WebM muxer and demuxer behind SwiftRTCMedia's WebMRecorder and WebMReader.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>

// AVERROR(e) is a macro Swift cannot import.
static inline int CAVFormat_error(int posix) { return AVERROR(posix); }
// AVERROR_EOF likewise (the demuxer's end of file).
static inline int CAVFormat_eof(void) { return AVERROR_EOF; }
