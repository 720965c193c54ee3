#ifndef SHOEBOX_CFFMPEG_SHIM_H
#define SHOEBOX_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <stdint.h>
#include <time.h>

/// libavformat's interrupt callback: non-zero once CLOCK_MONOTONIC passes the deadline (nanoseconds)
/// that `opaque` points to. ffmpeg calls it from its blocking I/O and demuxing loops.
static int shoebox_av_deadline_passed(void *opaque) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return now >= *(const uint64_t *)opaque;
}

/// Installs the deadline callback on a context made with avformat_alloc_context(); `deadline` must
/// outlive the context.
static inline void shoebox_av_set_deadline(AVFormatContext *ctx, uint64_t *deadline) {
    ctx->interrupt_callback.callback = shoebox_av_deadline_passed;
    ctx->interrupt_callback.opaque = deadline;
}
static inline int shoebox_averror_exit(void) { return AVERROR_EXIT; }

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
