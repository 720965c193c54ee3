/// The facts of an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1 and Annex E.1.1) that a container
/// does not carry itself: the displayed size after cropping, whether pictures may be interlaced, the
/// sample aspect ratio and the VUI timing (the frame rate the encoder declares).
struct H264SequenceParameters: Equatable {
    var profile: UInt8
    var level: UInt8
    var width: Int
    var height: Int
    /// `frame_mbs_only_flag` clear: fields or field/frame macroblock pairs (interlaced video).
    var interlaced: Bool
    var sampleAspect: (Int, Int)?
    var numUnitsInTick: UInt32?
    var timeScale: UInt32?
    /// `log2_max_frame_num_minus4 + 4`: the width of `frame_num` in slice headers.
    var frameNumBits: Int = 4
    /// `separate_colour_plane_flag`: slice headers carry a `colour_plane_id` before `frame_num`.
    var separateColourPlanes = false

    /// Frames per second declared by the VUI: `time_scale / (2 · num_units_in_tick)` (E.2.1: a frame is
    /// two clock ticks, one per field).
    var frameRate: Double? {
        guard let n = numUnitsInTick, let t = timeScale, n > 0, t > 0 else { return nil }
        return Double(t) / (2 * Double(n))
    }

    static func == (a: Self, b: Self) -> Bool {
        a.profile == b.profile && a.level == b.level && a.width == b.width && a.height == b.height && a.interlaced == b.interlaced
            && a.sampleAspect?.0 == b.sampleAspect?.0 && a.sampleAspect?.1 == b.sampleAspect?.1 && a.numUnitsInTick == b.numUnitsInTick
            && a.timeScale == b.timeScale && a.frameNumBits == b.frameNumBits && a.separateColourPlanes == b.separateColourPlanes
    }

    /// Profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses a sequence parameter set NAL unit (header byte included, emulation prevention not yet removed).
    static func parse<C: Collection>(nal: C) throws(ProbeError) -> H264SequenceParameters where C.Element == UInt8 {
        let rbsp = BitReader.rbsp(nal)
        guard let header = rbsp.first, header & 0x1F == 7 else { throw ProbeError(.malformed, "H.264 SPS: not a sequence parameter set NAL unit") }
        var r = BitReader(Array(rbsp.dropFirst()), what: "H.264 SPS")
        let profile = UInt8(try r.bits(8))
        try r.skip(8)  // constraint flags
        let level = UInt8(try r.bits(8))
        guard try r.ue() <= 31 else { throw ProbeError(.malformed, "H.264 SPS: seq_parameter_set_id above 31") }
        var chromaFormat: UInt32 = 1
        var separateColourPlanes = false
        if highProfiles.contains(profile) {
            chromaFormat = try r.ue()
            guard chromaFormat <= 3 else { throw ProbeError(.malformed, "H.264 SPS: chroma_format_idc \(chromaFormat)") }
            if chromaFormat == 3 { separateColourPlanes = try r.bit() }
            _ = try r.ue()  // bit_depth_luma_minus8
            _ = try r.ue()  // bit_depth_chroma_minus8
            try r.skip(1)  // qpprime_y_zero_transform_bypass_flag
            if try r.bit() {  // seq_scaling_matrix_present_flag
                for i in 0..<(chromaFormat == 3 ? 12 : 8) where try r.bit() {
                    try skipScalingList(&r, size: i < 6 ? 16 : 64)
                }
            }
        }
        let frameNumBits = Int(try r.ue()) + 4
        guard frameNumBits <= 16 else { throw ProbeError(.malformed, "H.264 SPS: log2_max_frame_num \(frameNumBits)") }
        let pocType = try r.ue()
        if pocType == 0 {
            _ = try r.ue()  // log2_max_pic_order_cnt_lsb_minus4
        } else if pocType == 1 {
            try r.skip(1)  // delta_pic_order_always_zero_flag
            _ = try r.se()
            _ = try r.se()
            let cycle = try r.ue()
            guard cycle <= 255 else { throw ProbeError(.malformed, "H.264 SPS: \(cycle) reference frames in a POC cycle") }
            for _ in 0..<cycle { _ = try r.se() }
        } else if pocType != 2 {
            throw ProbeError(.malformed, "H.264 SPS: pic_order_cnt_type \(pocType)")
        }
        _ = try r.ue()  // max_num_ref_frames
        try r.skip(1)  // gaps_in_frame_num_value_allowed_flag
        let widthInMbs = Int(try r.ue()) + 1
        let heightInMapUnits = Int(try r.ue()) + 1
        let frameMbsOnly = try r.bit()
        if !frameMbsOnly { try r.skip(1) }  // mb_adaptive_frame_field_flag
        try r.skip(1)  // direct_8x8_inference_flag
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.bit() {
            crop = (Int(try r.ue()), Int(try r.ue()), Int(try r.ue()), Int(try r.ue()))
        }
        // Crop units (7-19 … 7-22).
        let frameHeightFactor = frameMbsOnly ? 1 : 2
        var cropX = 1
        var cropY = frameHeightFactor
        if chromaFormat != 0 && !separateColourPlanes {
            cropX = chromaFormat == 3 ? 1 : 2
            cropY = (chromaFormat == 1 ? 2 : 1) * frameHeightFactor
        }
        guard widthInMbs <= 1024, heightInMapUnits <= 1024 else {
            throw ProbeError(.malformed, "H.264 SPS: \(widthInMbs)x\(heightInMapUnits) macroblocks")
        }
        let width = widthInMbs * 16 - cropX * (crop.left + crop.right)
        let height = frameHeightFactor * heightInMapUnits * 16 - cropY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { throw ProbeError(.malformed, "H.264 SPS: cropping leaves \(width)x\(height)") }
        var sps = H264SequenceParameters(
            profile: profile, level: level, width: width, height: height, interlaced: !frameMbsOnly, sampleAspect: nil, numUnitsInTick: nil,
            timeScale: nil, frameNumBits: frameNumBits, separateColourPlanes: separateColourPlanes)
        guard try r.bit() else { return sps }  // vui_parameters_present_flag
        if try r.bit() {  // aspect_ratio_info_present_flag
            let idc = try r.bits(8)
            if idc == 255 {
                sps.sampleAspect = (Int(try r.bits(16)), Int(try r.bits(16)))
            } else if Int(idc) < sampleAspectTable.count, idc > 0 {
                sps.sampleAspect = sampleAspectTable[Int(idc)]
            }
        }
        if try r.bit() { try r.skip(1) }  // overscan_info_present_flag, overscan_appropriate_flag
        if try r.bit() {  // video_signal_type_present_flag
            try r.skip(4)  // video_format, video_full_range_flag
            if try r.bit() { try r.skip(24) }  // colour primaries, transfer, matrix
        }
        if try r.bit() {  // chroma_loc_info_present_flag
            _ = try r.ue()
            _ = try r.ue()
        }
        if try r.bit() {  // timing_info_present_flag
            sps.numUnitsInTick = try r.bits(32)
            sps.timeScale = try r.bits(32)
        }
        return sps
    }

    /// Whether a slice (NAL unit type 1 or 5, header byte included) codes one field rather than a frame:
    /// `field_pic_flag` (7.3.3), present only when the sequence allows interlaced pictures.
    func codesFields<C: Collection>(slice nal: C) -> Bool? where C.Element == UInt8 {
        guard interlaced else { return false }
        let rbsp = BitReader.rbsp(nal.prefix(32))
        guard let header = rbsp.first, header & 0x1F == 1 || header & 0x1F == 5 else { return nil }
        var r = BitReader(Array(rbsp.dropFirst()), what: "H.264 slice header")
        do {
            _ = try r.ue()  // first_mb_in_slice
            _ = try r.ue()  // slice_type
            _ = try r.ue()  // pic_parameter_set_id
            if separateColourPlanes { try r.skip(2) }  // colour_plane_id
            try r.skip(frameNumBits)  // frame_num
            return try r.bit()  // field_pic_flag
        } catch {
            return nil
        }
    }

    static func skipScalingList(_ r: inout BitReader, size: Int) throws(ProbeError) {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            next = ((last + Int(try r.se())) % 256 + 256) % 256
            if next != 0 { last = next }
        }
    }

    /// Table E-1.
    static let sampleAspectTable: [(Int, Int)] = [
        (0, 1), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11), (80, 33), (18, 11), (15, 11), (64, 33),
        (160, 99), (4, 3), (3, 2), (2, 1),
    ]
}
