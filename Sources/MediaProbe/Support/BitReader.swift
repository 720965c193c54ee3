/// A most-significant-bit-first reader over a byte buffer, with the Exp-Golomb codes of H.264/HEVC
/// parameter sets. Reading past the end throws `ProbeError(.truncated)`; nothing trusts a length field.
struct BitReader {
    let bytes: [UInt8]
    private(set) var bitPosition = 0
    let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var bitsLeft: Int { bytes.count * 8 - bitPosition }

    mutating func bit() throws(ProbeError) -> Bool { try bits(1) == 1 }

    /// Up to 32 bits as an unsigned number.
    mutating func bits(_ n: Int) throws(ProbeError) -> UInt32 {
        precondition(n >= 0 && n <= 32)
        guard n <= bitsLeft else { throw ProbeError(.truncated, "\(what): wanted \(n) bits, \(bitsLeft) left") }
        var v: UInt32 = 0
        for _ in 0..<n {
            let byte = bytes[bitPosition >> 3]
            v = (v << 1) | UInt32((byte >> (7 - UInt8(bitPosition & 7))) & 1)
            bitPosition += 1
        }
        return v
    }

    mutating func skip(_ n: Int) throws(ProbeError) {
        guard n >= 0, n <= bitsLeft else { throw ProbeError(.truncated, "\(what): cannot skip \(n) bits, \(bitsLeft) left") }
        bitPosition += n
    }

    /// ue(v): unsigned Exp-Golomb. Values above 2^31 are refused as malformed (no parameter set needs them).
    mutating func ue() throws(ProbeError) -> UInt32 {
        var zeros = 0
        while try !bit() {
            zeros += 1
            if zeros > 31 { throw ProbeError(.malformed, "\(what): Exp-Golomb code longer than 32 bits") }
        }
        if zeros == 0 { return 0 }
        let rest = try bits(zeros)
        return (UInt32(1) << UInt32(zeros)) - 1 + rest
    }

    /// se(v): signed Exp-Golomb.
    mutating func se() throws(ProbeError) -> Int32 {
        let k = try ue()
        let magnitude = Int32(truncatingIfNeeded: (k + 1) / 2)
        return k & 1 == 1 ? magnitude : -magnitude
    }

    /// The payload of a NAL unit without its emulation-prevention bytes (00 00 03 → 00 00).
    static func rbsp<C: Collection>(_ nal: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for b in nal {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }
}
