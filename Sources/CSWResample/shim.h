// libswresample (FFmpeg): sample rate and channel conversion behind SwiftRTCMedia's AudioResampler.
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
