#ifndef SHOEBOX_CFFMPEG_SHIM_H
#define SHOEBOX_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>

/// Silences ffmpeg's own logging (it writes to stderr from any thread).
static inline void shoebox_av_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

/// AVERROR(EAGAIN) and friends are macros Swift cannot import.
static inline int shoebox_averror_eof(void) { return AVERROR_EOF; }
static inline int shoebox_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t shoebox_av_nopts(void) { return AV_NOPTS_VALUE; }

/// The rotation in degrees from a display-matrix side data block, or NAN.
static inline double shoebox_display_rotation(const uint8_t *matrix) {
    return matrix ? av_display_rotation_get((const int32_t *)matrix) : 0.0 / 0.0;
}
#endif
