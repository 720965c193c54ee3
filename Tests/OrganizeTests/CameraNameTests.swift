import PhotoModel
import Testing

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
}
