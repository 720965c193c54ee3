import Foundation
import Testing
import TestSupport
@testable import MediaProbe

@Suite struct XMPReaderTests {
    static func wrap(_ ns: String, _ body: String) -> [UInt8] {
        Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="test">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" \(ns)>
          \(body)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)
    }

    @Test func attributesAndElementsWithRemappedPrefixes() {
        let xmp = Self.wrap(#"""
            xmlns:Camera="http://ns.google.com/photos/1.0/camera/" xmlns:e="http://ns.adobe.com/exif/1.0/"
            xmlns:ps="http://ns.adobe.com/photoshop/1.0/" xmlns:xap="http://ns.adobe.com/xap/1.0/"
            xmlns:foo="http://example.com/foo/" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"
            Camera:MotionPhoto="1" Camera:MotionPhotoVersion='1' foo:Bar="baz" HDRGainMap:HDRGainMapVersion="65536"
            """#, #"""
            <Camera:MotionPhotoPresentationTimestampUs>1234567</Camera:MotionPhotoPresentationTimestampUs>
            <xap:Rating>5</xap:Rating>
            <ps:DateCreated>2015-09-27T16:29:28</ps:DateCreated>
            <e:UserComment><rdf:Alt><rdf:li xml:lang="de">Bildschirmfoto</rdf:li><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></e:UserComment>
            <dc:description xmlns:dc="http://purl.org/dc/elements/1.1/"><rdf:Alt><rdf:li xml:lang="x-default">A &amp; B &lt;c&gt; &#233;&#x20AC; &quot;q&quot; &apos;s&apos; &unknown;</rdf:li></rdf:Alt></dc:description>
            <dc:subject xmlns:dc="http://purl.org/dc/elements/1.1/"><rdf:Bag><rdf:li>one</rdf:li><rdf:li>two</rdf:li></rdf:Bag></dc:subject>
            <!-- <GCamera:MotionPhoto>0</GCamera:MotionPhoto> -->
            <dc:rights xmlns:dc="http://purl.org/dc/elements/1.1/"><rdf:Alt/></dc:rights>
            <exif:DateTimeOriginal xmlns:exif="http://ns.adobe.com/exif/1.0/"><![CDATA[2020-01-02T03:04:05]]></exif:DateTimeOriginal>
            """#)
        let f = XMPReader.parse(xmp, source: "test")
        #expect(f.source == "test")
        #expect(f["GCamera:MotionPhoto"] == "1")
        #expect(f["GCamera:MotionPhotoVersion"] == "1")
        #expect(f["GCamera:MotionPhotoPresentationTimestampUs"] == "1234567")
        #expect(f["xmp:Rating"] == "5")
        #expect(f["photoshop:DateCreated"] == "2015-09-27T16:29:28")
        #expect(f["exif:UserComment"] == "Screenshot")
        #expect(f["dc:description"] == "A & B <c> é€ \"q\" 's' &unknown;")
        #expect(f["dc:subject"] == "one, two")
        #expect(f["dc:rights"] == "")
        #expect(f["exif:DateTimeOriginal"] == "2020-01-02T03:04:05")
        #expect(f["foo:Bar"] == "baz")
        #expect(f["HDRGainMap:HDRGainMapVersion"] == "65536")
        #expect(f["x:xmptk"] == "test")
        #expect(f["rdf:about"] == nil)
    }

    @Test func containerDirectoryAsAttributesAndElements() {
        let ns = #"xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" xmlns:C="http://ns.google.com/photos/1.0/container/" xmlns:I="http://ns.google.com/photos/1.0/container/item/""#
        let xmp = Self.wrap(ns, #"""
            <GCamera:MotionPhoto>1</GCamera:MotionPhoto>
            <C:Directory>
              <rdf:Seq>
                <rdf:li rdf:parseType="Resource"><C:Item I:Mime="image/jpeg" I:Semantic="Primary" I:Length="0" I:Padding="0"/></rdf:li>
                <rdf:li rdf:parseType="Resource">
                  <C:Item rdf:parseType="Resource">
                    <I:Mime>video/mp4</I:Mime><I:Semantic>MotionPhoto</I:Semantic>
                    <I:Length> 3226668 </I:Length><I:Padding>199</I:Padding>
                  </C:Item>
                </rdf:li>
              </rdf:Seq>
            </C:Directory>
            """#)
        let f = XMPReader.parse(xmp, source: "test")
        #expect(f["GCamera:MotionPhoto"] == "1")
        #expect(f.directory == [
            XMPDirectoryItem(mime: "image/jpeg", semantic: "Primary", length: 0, padding: 0),
            XMPDirectoryItem(mime: "video/mp4", semantic: "MotionPhoto", length: 3_226_668, padding: 199),
        ])
        #expect(f["Item:Mime"] == nil)
    }

    @Test func billionLaughsIsInert() {
        var doc = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">"#
        for i in 2...9 { doc += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">" }
        doc += #"<!ENTITY x "]>"> ]>"#
        let body = #"<GCamera:BurstID>&lol9;</GCamera:BurstID>"#
        let xmp = Array(doc.utf8) + Self.wrap(#"xmlns:GCamera="http://ns.google.com/photos/1.0/camera/""#, body)
        let start = ContinuousClock.now
        let f = XMPReader.parse(xmp, source: "test")
        #expect(f["GCamera:BurstID"] == "&lol9;")
        // Expanded, the value would be 10⁹ "lol"s: the equality above is the check; the clock only
        // tells "expanded" from "not" (seconds, not a speed).
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func hugeSingleLinePacketIsBounded() {
        let head = Self.wrap(#"xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1""#, "")
        // 10 MB on one line: a giant attribute value, then text without a single '<'.
        let big = Array(#"<x:y GCamera:MicroVideo=""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 5_000_000)
            + Array(#""/>"#.utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 5_000_000)
        let start = ContinuousClock.now
        let f = XMPReader.parse(head + big, source: "test")
        #expect(f["GCamera:MotionPhoto"] == "1")
        #expect(f["GCamera:MicroVideo"] == nil)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func deepNestingAndGarbageDoNotCrash() {
        let deep = String(repeating: "<a:b xmlns:a=\"u\">", count: 20_000) + "x" + String(repeating: "</a:b>", count: 20_000)
        let f = XMPReader.parse(Array(deep.utf8), source: "t")
        #expect(f.fields.isEmpty)
        for junk in ["<", "<<<>>>", "</x>", "<a b=>", "<a b=\"unterminated", "<!--", "<![CDATA[", "<!DOCTYPE [[[", "&#xFFFFFFFF;", "<a>&#xD800;</a>", ""] {
            _ = XMPReader.parse(Array(junk.utf8), source: "t")
        }
        let bad = XMPReader.parse(Array("<a:x xmlns:a=\"http://ns.adobe.com/xap/1.0/\">&#xD800;&#1114112;</a:x>".utf8), source: "t")
        #expect(bad["xmp:x"] == "&#xD800;&#1114112;")
    }

    @Test func mismatchedEndTagsRecover() {
        let xmp = Self.wrap(#"xmlns:xmp="http://ns.adobe.com/xap/1.0/""#,
                            "<xmp:A><xmp:B>1</xmp:A><xmp:Rating>3</xmp:Rating>")
        #expect(XMPReader.parse(xmp, source: "t")["xmp:Rating"] == "3")
    }

    static var heicsWithXMP: [String] {
        CorpusImages.files(.heic).filter { rel in Oracle.tags(rel).keys.contains { $0.hasPrefix("XMP-") } }
    }

    /// HEIC XMP items, found by their `x:xmpmeta` element (the item table is the BMFF reader's job).
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: heicsWithXMP)
    func heicPacketsMatchOracle(_ rel: String) throws {
        // Auxiliary images (depth, gain map) carry their own packets; exiftool reports them all together.
        let all = try CorpusImages.bytes(rel)
        var f = XMPFacts(source: "HEIF mime items")
        var from = 0
        while let start = all.firstIndex(of: Bytes.ascii("<x:xmpmeta"), from: from),
            let end = all.firstIndex(of: Bytes.ascii("</x:xmpmeta>"), from: start)
        {
            let one = XMPReader.parse(Array(all[start..<end + 12]), source: "HEIF mime item")
            f.fields.merge(one.fields) { a, _ in a }
            f.directory += one.directory
            from = end
        }
        let tags = Oracle.tags(rel)
        #expect(XMPOracle.mismatches(f, oracle: tags) == [])
        #expect(XMPOracle.directoryMismatches(f, oracle: tags) == [])
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func sidecarMatchesOracle() throws {
        let rel = "osxphotos/test-images/IMG_4179.jpeg.xmp"
        let f = XMPReader.parse(try CorpusImages.bytes(rel), source: "sidecar")
        let tags = Oracle.tags(rel)
        #expect(XMPOracle.mismatches(f, oracle: tags) == [])
        #expect(f["dc:title"] == "Image Title")
        #expect(Double(f["exif:GPSLatitude"] ?? "") == nil)  // XMP GPS is "DD,MM.mmN"; exiftool converts it
    }
}
