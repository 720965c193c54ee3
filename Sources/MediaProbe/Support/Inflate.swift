/// Pure-Swift DEFLATE (RFC 1951) and zlib (RFC 1950) decompression with a hard output limit.
///
/// Every read is bounds-checked; invalid Huffman codes, distances before the start of the output,
/// over-subscribed or incomplete code tables, a missing final block and output past `limit` are all
/// `ProbeError`s. Each loop consumes input or produces output, so it always terminates.
public enum Inflate {
    /// Decompresses raw DEFLATE data (zlib `wbits = -15`), producing at most `limit` bytes.
    public static func raw(_ bytes: [UInt8], limit: Int) throws(ProbeError) -> [UInt8] {
        var state = InflateState(input: bytes, limit: max(0, limit))
        try state.run()
        return state.output
    }

    /// Decompresses a zlib stream (2-byte header, DEFLATE data, Adler-32), producing at most `limit` bytes.
    public static func zlib(_ bytes: [UInt8], limit: Int) throws(ProbeError) -> [UInt8] {
        guard bytes.count >= 6 else { throw ProbeError(.truncated, "zlib: \(bytes.count) bytes is shorter than header + checksum") }
        let cmf = bytes[0], flg = bytes[1]
        guard cmf & 0x0F == 8 else { throw ProbeError(.malformed, "zlib: compression method \(cmf & 0x0F) is not deflate") }
        guard cmf >> 4 <= 7 else { throw ProbeError(.malformed, "zlib: window size \(cmf >> 4) is invalid") }
        guard (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else { throw ProbeError(.malformed, "zlib: header check bits are wrong") }
        guard flg & 0x20 == 0 else { throw ProbeError(.unsupported, "zlib: preset dictionary is not supported") }
        var state = InflateState(input: bytes, limit: max(0, limit), start: 2)
        try state.run()
        // The checksum follows the last block, byte-aligned.
        let end = state.byteAlignedPosition()
        guard end + 4 <= bytes.count else { throw ProbeError(.truncated, "zlib: missing Adler-32 checksum") }
        let stored = UInt32(bytes[end]) << 24 | UInt32(bytes[end + 1]) << 16 | UInt32(bytes[end + 2]) << 8 | UInt32(bytes[end + 3])
        let actual = adler32(state.output)
        guard stored == actual else {
            throw ProbeError(.malformed, "zlib: Adler-32 mismatch (stored \(stored), computed \(actual))")
        }
        return state.output
    }

    /// Adler-32 checksum of `bytes` (RFC 1950).
    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + 5552)
            while i < end {
                a &+= UInt32(bytes[i])
                b &+= a
                i += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }
}

/// A canonical Huffman decoding table (counts per length + symbols sorted by code), as in zlib's puff.c.
private struct Huffman {
    var counts: [Int] = Array(repeating: 0, count: 16)
    var symbols: [Int]
    /// The codes of up to `fastBits` bits, indexed by the next `fastBits` bits of the stream (codes arrive
    /// most significant bit first, so each sits bit-reversed in the low bits): `symbol << 4 | length`, or 0
    /// for a longer code (decoded a bit at a time, as puff.c does).
    var fast: [UInt16] = []
    static let fastBits = 9

    /// Builds the table; throws on over-subscribed sets and on incomplete ones unless `allowIncomplete`.
    init(lengths: [Int], allowIncomplete: Bool, what: String) throws(ProbeError) {
        symbols = Array(repeating: 0, count: lengths.count)
        for l in lengths { counts[l] += 1 }
        var left = 1
        for len in 1..<16 {
            left <<= 1
            left -= counts[len]
            if left < 0 { throw ProbeError(.malformed, "deflate: over-subscribed \(what) code lengths") }
        }
        if left > 0 {
            // An incomplete code is only legal for a single code of length 1 (RFC 1951 §3.2.7).
            let used = lengths.count - counts[0]
            if !(allowIncomplete && used <= 1) {
                throw ProbeError(.malformed, "deflate: incomplete \(what) code lengths")
            }
        }
        var offsets = Array(repeating: 0, count: 16)
        for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
        for (sym, l) in lengths.enumerated() where l != 0 {
            symbols[offsets[l]] = sym
            offsets[l] += 1
        }
        // Canonical codes (RFC 1951 §3.2.2), the short ones into the lookup table.
        fast = Array(repeating: 0, count: 1 << Self.fastBits)
        var next = Array(repeating: 0, count: 16)
        var code = 0
        for len in 1..<16 {
            code = (code + (len == 1 ? 0 : counts[len - 1])) << 1
            next[len] = code
        }
        for (sym, l) in lengths.enumerated() where l != 0 && l <= Self.fastBits {
            var reversed = 0, c = next[l]
            next[l] += 1
            for _ in 0..<l {
                reversed = reversed << 1 | (c & 1)
                c >>= 1
            }
            var i = reversed
            while i < 1 << Self.fastBits {
                fast[i] = UInt16(sym << 4 | l)
                i += 1 << l
            }
        }
    }
}

private struct InflateState {
    let input: [UInt8]
    let limit: Int
    var output: [UInt8] = []
    var pos: Int
    var bitBuf: UInt32 = 0
    var bitCount: Int = 0

    init(input: [UInt8], limit: Int, start: Int = 0) {
        self.input = input
        self.limit = limit
        self.pos = start
        output.reserveCapacity(min(limit, max(1024, input.count * 4)))
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                    67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                  1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                   12, 12, 13, 13]
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Index of the first byte after the bits consumed so far (drops a partial byte).
    func byteAlignedPosition() -> Int { pos - bitCount / 8 }

    mutating func bits(_ n: Int) throws(ProbeError) -> Int {
        while bitCount < n {
            guard pos < input.count else { throw ProbeError(.truncated, "deflate: stream ends inside a block") }
            bitBuf |= UInt32(input[pos]) << UInt32(bitCount)
            pos += 1
            bitCount += 8
        }
        let v = Int(bitBuf & ((UInt32(1) << UInt32(n)) &- 1))
        bitBuf = n == 32 ? 0 : bitBuf >> UInt32(n)
        bitCount -= n
        return v
    }

    mutating func decode(_ h: Huffman) throws(ProbeError) -> Int {
        // Whole bytes ahead, as many as fit the table's width (`byteAlignedPosition` and `stored` give back
        // what was read ahead); a short code is then one lookup.
        while bitCount < Huffman.fastBits, pos < input.count {
            bitBuf |= UInt32(input[pos]) << UInt32(bitCount)
            pos += 1
            bitCount += 8
        }
        if !h.fast.isEmpty {
            let entry = h.fast[Int(bitBuf & UInt32((1 << Huffman.fastBits) - 1))]
            let length = Int(entry & 15)
            if entry != 0, length <= bitCount {
                bitBuf >>= UInt32(length)
                bitCount -= length
                return Int(entry >> 4)
            }
        }
        var code = 0, first = 0, index = 0
        for len in 1..<16 {
            code |= try bits(1)
            let count = h.counts[len]
            if code - count < first { return h.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        throw ProbeError(.malformed, "deflate: invalid Huffman code")
    }

    mutating func run() throws(ProbeError) {
        var last = false
        while !last {
            last = try bits(1) == 1
            switch try bits(2) {
            case 0: try stored()
            case 1: try codes(lit: InflateState.fixedLit, dist: InflateState.fixedDist)
            case 2: try dynamic()
            default: throw ProbeError(.malformed, "deflate: reserved block type 3")
            }
        }
    }

    mutating func append(_ b: UInt8) throws(ProbeError) {
        guard output.count < limit else { throw ProbeError(.tooLarge, "deflate: output exceeds the \(limit)-byte limit") }
        output.append(b)
    }

    mutating func stored() throws(ProbeError) {
        pos = byteAlignedPosition()  // whole bytes read ahead by `decode` are the block's
        bitBuf = 0
        bitCount = 0
        guard pos + 4 <= input.count else { throw ProbeError(.truncated, "deflate: stored block header is cut off") }
        let len = Int(input[pos]) | Int(input[pos + 1]) << 8
        let nlen = Int(input[pos + 2]) | Int(input[pos + 3]) << 8
        pos += 4
        guard len == (~nlen & 0xFFFF) else { throw ProbeError(.malformed, "deflate: stored block length check fails") }
        guard pos + len <= input.count else { throw ProbeError(.truncated, "deflate: stored block wants \(len) bytes, \(input.count - pos) left") }
        guard output.count + len <= limit else { throw ProbeError(.tooLarge, "deflate: output exceeds the \(limit)-byte limit") }
        output.append(contentsOf: input[pos..<pos + len])
        pos += len
    }

    static let fixedLit: Huffman = {
        var l = Array(repeating: 8, count: 288)
        for i in 144..<256 { l[i] = 9 }
        for i in 256..<280 { l[i] = 7 }
        // Cannot fail: the fixed code is complete.
        return (try? Huffman(lengths: l, allowIncomplete: false, what: "fixed literal")) ?? Huffman.empty
    }()
    /// 32 codes of 5 bits; symbols 30 and 31 decode but are rejected as invalid distances.
    static let fixedDist: Huffman = {
        (try? Huffman(lengths: Array(repeating: 5, count: 32), allowIncomplete: false, what: "fixed distance")) ?? Huffman.empty
    }()

    mutating func dynamic() throws(ProbeError) {
        let nlen = try bits(5) + 257
        let ndist = try bits(5) + 1
        let ncode = try bits(4) + 4
        guard nlen <= 286, ndist <= 30 else { throw ProbeError(.malformed, "deflate: \(nlen) literal or \(ndist) distance codes is too many") }
        var clLengths = Array(repeating: 0, count: 19)
        for i in 0..<ncode { clLengths[InflateState.codeLengthOrder[i]] = try bits(3) }
        let clCode = try Huffman(lengths: clLengths, allowIncomplete: false, what: "code-length")
        var lengths: [Int] = []
        lengths.reserveCapacity(nlen + ndist)
        while lengths.count < nlen + ndist {
            let sym = try decode(clCode)
            if sym < 16 {
                lengths.append(sym)
                continue
            }
            var value = 0
            let repeatCount: Int
            switch sym {
            case 16:
                guard let prev = lengths.last else { throw ProbeError(.malformed, "deflate: repeat with no previous length") }
                value = prev
                repeatCount = 3 + (try bits(2))
            case 17: repeatCount = 3 + (try bits(3))
            default: repeatCount = 11 + (try bits(7))
            }
            guard lengths.count + repeatCount <= nlen + ndist else { throw ProbeError(.malformed, "deflate: code lengths overrun the table") }
            lengths.append(contentsOf: repeatElement(value, count: repeatCount))
        }
        guard lengths[256] != 0 else { throw ProbeError(.malformed, "deflate: no end-of-block code") }
        let lit = try Huffman(lengths: Array(lengths[0..<nlen]), allowIncomplete: true, what: "literal/length")
        let dist = try Huffman(lengths: Array(lengths[nlen...]), allowIncomplete: true, what: "distance")
        try codes(lit: lit, dist: dist)
    }

    mutating func codes(lit: Huffman, dist: Huffman) throws(ProbeError) {
        while true {
            let sym = try decode(lit)
            if sym < 256 {
                try append(UInt8(sym))
            } else if sym == 256 {
                return
            } else {
                let li = sym - 257
                guard li < 29 else { throw ProbeError(.malformed, "deflate: invalid length symbol \(sym)") }
                let len = InflateState.lengthBase[li] + (try bits(InflateState.lengthExtra[li]))
                let ds = try decode(dist)
                guard ds < 30 else { throw ProbeError(.malformed, "deflate: invalid distance symbol \(ds)") }
                let d = InflateState.distBase[ds] + (try bits(InflateState.distExtra[ds]))
                guard d <= output.count else {
                    throw ProbeError(.malformed, "deflate: distance \(d) reaches before the start of the output (\(output.count) bytes)")
                }
                guard output.count + len <= limit else { throw ProbeError(.tooLarge, "deflate: output exceeds the \(limit)-byte limit") }
                var from = output.count - d
                for _ in 0..<len {
                    output.append(output[from])
                    from += 1
                }
            }
        }
    }
}

extension Huffman {
    fileprivate static let empty: Huffman = Huffman(counts: Array(repeating: 0, count: 16), symbols: [])
    private init(counts: [Int], symbols: [Int]) {
        self.counts = counts
        self.symbols = symbols
    }
}
