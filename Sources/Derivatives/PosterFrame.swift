import CFFmpeg
import Foundation

/// One decoded video frame as packed RGB24, at its display size (sample aspect applied), with the
/// stream's display-matrix rotation still to apply.
struct PosterFrame {
    var width: Int
    var height: Int
    var rgb: [UInt8]
    /// Clockwise degrees to rotate for display (0, 90, 180, 270).
    var clockwiseRotation: Int

    static let quiet: Void = { shoebox_av_quiet() }()

    /// Decodes the first frame at or after `fraction` of the duration (the start when the duration is
    /// unknown or seeking fails). Opens `path` with the `file` protocol only.
    /// A seek that lands after the last keyframe (short MPEG-TS clips) leaves nothing decodable: then the
    /// first frame from the start is used.
    static func decode(path: String, fraction: Double = 0.1) throws(DerivativeError) -> PosterFrame {
        do { return try decodeOnce(path: path, fraction: fraction) } catch {
            guard fraction > 0 else { throw error }
            return try decodeOnce(path: path, fraction: 0)
        }
    }

    static func decodeOnce(path: String, fraction: Double) throws(DerivativeError) -> PosterFrame {
        _ = quiet
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        var opts: OpaquePointer? = nil
        av_dict_set(&opts, "protocol_whitelist", "file", 0)
        defer { av_dict_free(&opts) }
        try checked(avformat_open_input(&ctx, "file:" + path, nil, &opts), "avformat_open_input")
        guard let fc = ctx else { throw DerivativeError("cannot open", function: "avformat_open_input") }
        defer { avformat_close_input(&ctx) }
        try checked(avformat_find_stream_info(fc, nil), "avformat_find_stream_info")

        var codecPtr: UnsafePointer<AVCodec>? = nil
        let si = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codecPtr, 0)
        guard si >= 0, let codec = codecPtr, let st = fc.pointee.streams[Int(si)] else {
            throw DerivativeError("no decodable video stream", function: "av_find_best_stream")
        }
        var ccOpt = avcodec_alloc_context3(codec)
        guard let cc = ccOpt else { throw DerivativeError("out of memory", function: "avcodec_alloc_context3") }
        defer { avcodec_free_context(&ccOpt) }
        try checked(avcodec_parameters_to_context(cc, st.pointee.codecpar), "avcodec_parameters_to_context")
        cc.pointee.thread_count = 1
        try checked(avcodec_open2(cc, codec, nil), "avcodec_open2")

        // Rotation from the display matrix: av_display_rotation_get is counter-clockwise.
        var rotation = 0
        var sdSize: Int = 0
        if let m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &sdSize), sdSize >= 36 {
            let ccw = shoebox_display_rotation(m)
            if ccw.isFinite { rotation = ((Int((-ccw).rounded()) % 360) + 360) % 360 }
        }

        let nopts = shoebox_av_nopts()
        var target = nopts
        let tb = st.pointee.time_base
        var seconds: Double = 0
        if st.pointee.duration > 0, tb.den > 0 {
            seconds = Double(st.pointee.duration) * Double(tb.num) / Double(tb.den)
        } else if fc.pointee.duration > 0 {
            seconds = Double(fc.pointee.duration) / Double(AV_TIME_BASE)
        }
        if fraction > 0, seconds > 0, tb.num > 0 {
            let start = st.pointee.start_time == nopts ? 0 : st.pointee.start_time
            let t = start + Int64(seconds * fraction * Double(tb.den) / Double(tb.num))
            if av_seek_frame(fc, si, t, AVSEEK_FLAG_BACKWARD) >= 0 {
                avcodec_flush_buffers(cc)
                target = t
            }
        }

        var pktOpt = av_packet_alloc()
        var frameOpt = av_frame_alloc()
        var lastOpt = av_frame_alloc()
        defer { av_packet_free(&pktOpt); av_frame_free(&frameOpt); av_frame_free(&lastOpt) }
        guard let pkt = pktOpt, let frame = frameOpt, let last = lastOpt else {
            throw DerivativeError("out of memory", function: "av_frame_alloc")
        }
        let eagain = shoebox_averror_eagain(), eof = shoebox_averror_eof()
        var haveLast = false
        var packets = 0
        var lastError: Int32 = 0
        reading: while packets < 5000 {
            let r = av_read_frame(fc, pkt)
            if r < 0 {
                _ = avcodec_send_packet(cc, nil)  // drain
            } else {
                if pkt.pointee.stream_index != si { av_packet_unref(pkt); continue }
                packets += 1
                let s = avcodec_send_packet(cc, pkt)
                av_packet_unref(pkt)
                if s < 0, s != eagain { lastError = s; continue }
            }
            while true {
                let d = avcodec_receive_frame(cc, frame)
                if d == eagain { break }
                if d == eof { break reading }
                if d < 0 { lastError = d; break }
                let pts = frame.pointee.best_effort_timestamp
                if target == nopts || pts == nopts || pts >= target {
                    return try convert(frame, rotation: rotation)
                }
                av_frame_unref(last)
                if av_frame_ref(last, frame) >= 0 { haveLast = true }
                av_frame_unref(frame)
            }
            if r < 0 { break }
        }
        if haveLast { return try convert(last, rotation: rotation) }
        let why = lastError < 0 ? ": " + errorText(lastError) : ""
        throw DerivativeError("no decodable video frame\(why)", function: "avcodec_receive_frame")
    }

    static func convert(_ frame: UnsafeMutablePointer<AVFrame>, rotation: Int) throws(DerivativeError) -> PosterFrame {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        guard w > 0, h > 0, w <= 16384, h <= 16384 else { throw DerivativeError("frame size \(w)x\(h)", function: "avcodec_receive_frame") }
        var dw = w
        let sar = frame.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0, sar.num != sar.den {
            dw = max(1, min(16384, Int((Double(w) * Double(sar.num) / Double(sar.den)).rounded())))
        }
        guard let sws = sws_getContext(Int32(w), Int32(h), AVPixelFormat(frame.pointee.format), Int32(dw), Int32(h), AV_PIX_FMT_RGB24, Int32(SWS_BICUBIC), nil, nil, nil) else {
            throw DerivativeError("unsupported pixel format \(frame.pointee.format)", function: "sws_getContext")
        }
        defer { sws_freeContext(sws) }
        var dstOpt = av_frame_alloc()
        defer { av_frame_free(&dstOpt) }
        guard let dst = dstOpt else { throw DerivativeError("out of memory", function: "av_frame_alloc") }
        dst.pointee.width = Int32(dw)
        dst.pointee.height = Int32(h)
        dst.pointee.format = AV_PIX_FMT_RGB24.rawValue
        try checked(av_frame_get_buffer(dst, 0), "av_frame_get_buffer")
        try checked(sws_scale_frame(sws, dst, frame), "sws_scale_frame")
        let stride = Int(dst.pointee.linesize.0), row = dw * 3
        guard let base = dst.pointee.data.0, stride >= row else { throw DerivativeError("no picture", function: "sws_scale_frame") }
        var rgb = [UInt8](repeating: 0, count: row * h)
        rgb.withUnsafeMutableBytes { out in
            for y in 0..<h {
                (out.baseAddress! + y * row).copyMemory(from: base + y * stride, byteCount: row)
            }
        }
        return PosterFrame(width: dw, height: h, rgb: rgb, clockwiseRotation: rotation)
    }

    /// The one checking helper for ffmpeg calls: a negative status becomes a `DerivativeError`.
    static func checked(_ status: Int32, _ function: String) throws(DerivativeError) {
        guard status < 0 else { return }
        throw DerivativeError(errorText(status), function: function)
    }

    static func errorText(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 256)
        _ = av_strerror(code, &buf, buf.count)
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
