import CFFmpeg

/// Stream facts through libavformat (ffmpeg 5.1). Used for codecs, dimensions, audio and bit rates,
/// and cross-checked against our own box readings; never the source of truth for Apple keys (C4–C6).
enum AVProbe {
    struct Result: Sendable {
        var format: FormatFacts
        var streams: [StreamFacts]
    }

    /// Silences ffmpeg's logging once per process.
    static let quiet: Void = { shoebox_av_quiet() }()

    /// Opens `path` with the `file` protocol only (a path such as `concat:…` or `http:…` is never
    /// interpreted as a URL). `analyze` runs `avformat_find_stream_info`, which decodes a few packets:
    /// needed for AVI/MPEG-TS/Matroska, not for MOV/MP4 whose headers carry everything.
    static func probe(path: String, analyze: Bool, deadline: Deadline? = nil) throws(ProbeError) -> Result {
        _ = quiet
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        // The deadline lives on the heap for as long as the context may call back into it.
        let limit = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        limit.initialize(to: deadline?.nanoseconds ?? .max)
        defer { limit.deallocate() }
        if deadline != nil {
            guard let c = avformat_alloc_context() else { throw ProbeError(.library, "out of memory", function: "avformat_alloc_context") }
            shoebox_av_set_deadline(c, limit)
            ctx = c  // freed by avformat_open_input on failure, by avformat_close_input otherwise
        }
        func failure(_ rc: Int32, _ what: String, _ function: String) -> ProbeError {
            if rc == shoebox_averror_exit(), let deadline {
                return ProbeError(.timedOut, "time budget of \(deadline) used up in libavformat (\(function))")
            }
            return ProbeError(.library, "\(what): \(errorText(rc))", function: function)
        }
        var opts: OpaquePointer? = nil
        av_dict_set(&opts, "protocol_whitelist", "file", 0)
        defer { av_dict_free(&opts) }
        let url = "file:" + path
        let rc = avformat_open_input(&ctx, url, nil, &opts)
        guard rc >= 0, let fc = ctx else { throw failure(rc, "cannot open", "avformat_open_input") }
        defer { avformat_close_input(&ctx) }
        if analyze {
            fc.pointee.probesize = 2 << 20
            fc.pointee.max_analyze_duration = 2 * Int64(AV_TIME_BASE)
            let r = avformat_find_stream_info(fc, nil)
            if r < 0 { throw failure(r, "no stream info", "avformat_find_stream_info") }
        }
        let name = fc.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "?"
        var duration: Double?
        if fc.pointee.duration > 0 { duration = Double(fc.pointee.duration) / Double(AV_TIME_BASE) }
        let bitRate = fc.pointee.bit_rate > 0 ? fc.pointee.bit_rate : nil
        let format = FormatFacts(name: name, durationSeconds: duration, bitRate: bitRate, tags: tags(fc.pointee.metadata))

        var streams: [StreamFacts] = []
        let n = Int(fc.pointee.nb_streams)
        for i in 0..<min(n, 64) {
            guard let st = fc.pointee.streams[i], let par = st.pointee.codecpar else { continue }
            let p = par.pointee
            var s = StreamFacts(index: i, type: av_get_media_type_string(p.codec_type).map { String(cString: $0) } ?? "unknown")
            if p.codec_id != AV_CODEC_ID_NONE { s.codec = String(cString: avcodec_get_name(p.codec_id)) }
            if p.codec_tag != 0 { s.codecTag = fourCC(p.codec_tag) }
            if p.width > 0 { s.width = Int(p.width) }
            if p.height > 0 { s.height = Int(p.height) }
            if p.bit_rate > 0 { s.bitRate = p.bit_rate }
            if st.pointee.nb_frames > 0 { s.frameCount = st.pointee.nb_frames }
            s.averageFrameRate = rational(st.pointee.avg_frame_rate)
            s.claimedFrameRate = rational(st.pointee.r_frame_rate)
            let tb = st.pointee.time_base
            if st.pointee.duration > 0, tb.den > 0 {
                s.durationSeconds = Double(st.pointee.duration) * Double(tb.num) / Double(tb.den)
            }
            if p.sample_rate > 0 { s.sampleRate = Int(p.sample_rate) }
            if p.ch_layout.nb_channels > 0 { s.channels = Int(p.ch_layout.nb_channels) }
            var size: Int = 0
            if let m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
                let rot = shoebox_display_rotation(m)
                if rot.isFinite { s.rotation = rot == 0 ? 0 : rot }
            }
            streams.append(s)
        }
        return Result(format: format, streams: streams)
    }

    static func rational(_ r: AVRational) -> Double? {
        guard r.den > 0, r.num > 0 else { return nil }
        return Double(r.num) / Double(r.den)
    }

    static func tags(_ dict: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dict, "", e, AV_DICT_IGNORE_SUFFIX), out.count < 256 {
            out[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            e = next
        }
        return out
    }

    static func fourCC(_ v: UInt32) -> String {
        BinaryReader.fourCC([UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)])
    }

    static func errorText(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 256)
        _ = av_strerror(code, &buf, buf.count)
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
