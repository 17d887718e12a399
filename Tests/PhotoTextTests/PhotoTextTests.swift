import Bus
import Foundation
import PhotoText
import PhotoTextAPI
import Testing

/// Tesseract through the plugin's C module, on images of known text (Fixtures/make_fixtures.py).
@Suite struct PhotoTextTests {
    static func fixture(_ name: String) throws -> Data {
        let resources = try #require(Bundle.module.resourceURL, "the test bundle's resources")
        return try Data(contentsOf: resources.appendingPathComponent("Fixtures/\(name)"))
    }

    @Test func readsTheTextOfAPhoto() throws {
        let read = try Tesseract.recognise(try Self.fixture("receipt.png"), languages: ["eng"], dataPath: nil, maxPixels: 40_000_000)
        #expect(read.text.contains("Harbour Bakery"), "read: \(read.text)")
        #expect(read.text.contains("Rhubarb crumble"), "read: \(read.text)")
        #expect(read.text.contains("Paid with thanks"), "read: \(read.text)")
        #expect(read.languages == "eng")
        #expect(read.confidence > 60)
    }

    @Test func turnsAPhotoUprightByItsOrientation() throws {
        // The same text stored sideways (a phone held upright: EXIF orientation 6 says "turn a quarter clockwise").
        let read = try Tesseract.recognise(try Self.fixture("receipt-sideways.png"), orientation: 6, languages: ["eng"], dataPath: nil,
                                           maxPixels: 40_000_000)
        #expect(read.text.contains("Harbour Bakery"), "read: \(read.text)")
    }

    @Test func refusesAPhotoOverItsPixelLimitBeforeDecoding() throws {
        #expect {
            _ = try Tesseract.recognise(try Self.fixture("receipt.png"), languages: ["eng"], dataPath: nil, maxPixels: 100_000)
        } throws: { error in
            guard let error = error as? BusError else { return false }
            return error.code == .tooLarge && error.details["reason"] == "too_many_pixels" && error.message.contains("max_pixels")
        }
    }

    @Test func refusesBytesThatAreNotAnImage() {
        #expect {
            _ = try Tesseract.recognise(Data("not a photo at all, only words".utf8), languages: ["eng"], dataPath: nil, maxPixels: 40_000_000)
        } throws: { error in
            (error as? BusError)?.code == .unsupportedMedia && (error as? BusError)?.details["reason"] == "not_an_image"
        }
        // A PNG cut short: its header reads, its pixels do not.
        let cut = (try? Self.fixture("receipt.png").prefix(600)) ?? Data()
        #expect(throws: BusError.self) {
            _ = try Tesseract.recognise(Data(cut), languages: ["eng"], dataPath: nil, maxPixels: 40_000_000)
        }
    }

    @Test func saysWhichLanguagesAreMissing() {
        #expect {
            _ = try Tesseract.recognise(try Self.fixture("receipt.png"), languages: ["xqz"], dataPath: nil, maxPixels: 40_000_000)
        } throws: { error in
            (error as? BusError)?.code == .unavailable && (error as? BusError)?.details["reason"] == "languages_missing"
        }
    }

    @Test func tidiesTesseractsLines() {
        #expect(Tesseract.tidy("  one  \n\n\n two\n\u{0C}\n") == "one\n\ntwo")
    }
}
