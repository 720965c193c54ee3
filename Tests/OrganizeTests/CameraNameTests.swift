import Testing

@testable import PhotoModel

@Suite struct CameraNameTests {
    @Test func photosStyleNames() {
        #expect(CameraName.display(make: "Canon", model: "Canon EOS 350D DIGITAL") == "Canon EOS 350D")
        #expect(CameraName.display(make: "NIKON CORPORATION", model: "NIKON D70") == "NIKON D70")
        #expect(CameraName.display(make: "Apple", model: "iPhone 15 Pro") == "Apple iPhone 15 Pro")
        #expect(CameraName.display(make: "samsung", model: "SM-G991B") == "samsung SM-G991B")
        #expect(CameraName.display(make: nil, model: "DMC-GX7") == "DMC-GX7")
        #expect(CameraName.display(make: "Google ", model: nil) == "Google")
        #expect(CameraName.display(make: " ", model: "") == nil)
    }

    /// The byte-wise path gives what the Character-wise one gave, for names with padding, NULs, odd case,
    /// " digital" in any case, a make that is the model's prefix or not, and non-ASCII names.
    @Test func asciiPathMatchesTheCharacterDefinition() {
        let makes: [String?] = [
            nil, "", " ", "\0\0", "Canon", " Canon\0", "NIKON CORPORATION", "nikon", "OLYMPUS IMAGING CORP.  ", "Sony", "SONY ",
            "Ricoh Co", "Ünicode", " \u{301}Acme", "Apple\u{600} ", "A  B",
        ]
        let models: [String?] = [
            nil, "", "\0", "Canon EOS 350D DIGITAL", "canon eos digital", "NIKON D70 ", "Nikon", "E-M5", "ILCE-7M3\0\0", " DIGITAL",
            "DIGITAL", "x digital", "Ünicode One", "Acme\u{301} Pro", "a  b", "Ricoh",
        ]
        for make in makes {
            for model in models {
                #expect(CameraName.display(make: make, model: model) == CameraName.characterDisplay(make: make, model: model), "\(String(describing: make)) / \(String(describing: model))")
            }
        }
    }
}
