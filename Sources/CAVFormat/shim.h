// libavformat (FFmpeg): the Matroska/WebM muxer behind SwiftRTCMedia's WebMRecorder.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>

// AVERROR(e) is a macro Swift cannot import.
static inline int CAVFormat_error(int posix) { return AVERROR(posix); }
