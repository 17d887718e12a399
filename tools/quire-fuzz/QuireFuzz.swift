import AppConfig
import AudioAPI
import Bus
import DrawingAPI
import Foundation
import NotesFormats
import StorageAPI
import VocabularyFormats

/// Fuzz targets for the parsers Quire wrote itself. Each takes any bytes and must neither trap nor
/// hang; where a parse succeeds, what it gives back must survive the round trip it promises.
///
/// Two builds of one source:
/// - the ordinary build (`swift build`) is a replayer: `quire-fuzz replay TARGET FILE|DIR…` runs
///   every input of a corpus once, so `tools/test` keeps every input the fuzzer ever kept (and every
///   crash it found) passing;
/// - built with `-sanitize=fuzzer,address -DFUZZING` (`tools/fuzz`), libFuzzer drives
///   `LLVMFuzzerTestOneInput`, choosing the target from `QUIRE_FUZZ_TARGET`.
enum FuzzTarget: String, CaseIterable {
    /// Storage's one-pass JSON parser (every record read goes through it).
    case json
    /// Query cursors as clients send them back.
    case cursor
    /// The YAML config loader and every setting the host reads.
    case config
    /// Vocabulary's CSV import.
    case csv
    /// The drawing document (strokes and texts) and its validation.
    case drawing
    /// Notes' Evernote import: the XML pull parser, the .enex reader and ENML as text.
    case enex
    /// The audio plugin's WAV upload intake: the header check an upload goes through before its body
    /// is read, then the chunk-by-chunk reading within the file's length, with the limits.
    case wav

    func run(_ data: Data) {
        switch self {
        case .json:
            guard let document = try? JSONDocument(json: data), let value = try? document.parsed() else { return }
            // What the parser accepts, the canonical writer writes back, and the parser reads the same.
            let again = try? JSONDocument(json: Data(value.canonicalJSONText.utf8)).parsed()
            check(again == value, "JSON round trip changed the value")
        case .cursor:
            let text = String(decoding: data, as: UTF8.self)
            for keys in 0...3 {
                guard let cursor = try? QueryCursor.decode(text, keyCount: keys) else { continue }
                check((try? QueryCursor.decode(cursor.encoded(), keyCount: keys)) == cursor, "cursor round trip changed it")
            }
        case .config:
            guard let text = String(validating: data, as: UTF8.self), let root = try? YAMLLoader.parse(text, file: "fuzz.yaml") else { return }
            let config = AppConfig(root: root, environment: ["QUIRE_PORT": "8080"])
            _ = (config.app, config.server, config.bus, config.plugins.map { $0.section.keys.count })
            _ = try? config.reader.finish()
        case .csv:
            guard var source = try? CSVSource(data: data) else { return }
            var rows = 0
            while let row = source.next() {
                rows += 1
                if case .success(let imported) = row { check(imported.number >= 1, "a CSV row numbered below 1") }
            }
            check(rows <= (source.total ?? Int.max), "more CSV rows than lines")
        case .drawing:
            guard let drawing = try? JSONDecoder().decode(Drawing.self, from: data) else { return }
            if (try? drawing.validate()) != nil {
                let again = (try? JSONEncoder().encode(drawing)).flatMap { try? JSONDecoder().decode(Drawing.self, from: $0) }
                check(again == drawing, "a valid drawing changed through JSON")
            }
        case .enex:
            _ = ENML.text(String(decoding: data, as: UTF8.self))
            guard var reader = try? EnexReader(MemoryChunks([UInt8](data), chunk: 1 + data.count % 97), size: Int64(data.count), maxPhotoBytes: 4096)
            else { return }
            var notes = 0
            while let next = reader.next() {
                notes += 1
                if case .success(let note) = next {
                    check(note.index == notes, "notes numbered out of order")
                    check((note.photo?.bytes.count ?? 0) <= 4096, "a photo over the limit was kept")
                }
            }
            check(reader.progress.done <= Int64(data.count), "read more bytes than there are")
        case .wav:
            // Short limits, so the too-long refusals (from the header and from the data chunk) are reached too.
            let limits = AudioLimits(maxBytes: 1 << 20, maxSeconds: 1 + data.count % 3)
            let head = data.prefix(WAVFormat.headBytes)
            let headPassed = (try? WAVFormat.checkHead(head, limits: limits)) != nil
            // As a route hands it over: a slice whose indices do not start at 0.
            let body = (Data([0]) + data).dropFirst()
            let format: WAVFormat
            do {
                format = try WAVFormat.parse(body, limits: limits)
            } catch {
                check(!error.message.isEmpty && error.details["reason"] != nil, "a WAV refusal without a message or reason")
                return
            }
            check(headPassed, "a WAV read whole whose header check refused it")
            check(format.dataOffset >= 12 && format.dataBytes > 0 && format.dataOffset + format.dataBytes <= data.count,
                  "WAV samples outside the file")
            check(WAVFormat.sampleRates.contains(format.sampleRate) && format.seconds <= Double(limits.maxSeconds), "a WAV over the limits read")
            check(format.samples(of: body).count == format.sampleCount, "WAV samples miscounted")
        }
    }

    /// A broken promise is a crash, so the fuzzer keeps the input that showed it.
    private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            FileHandle.standardError.write(Data("quire-fuzz \(rawValue): \(message())\n".utf8))
            abort()
        }
    }
}

#if FUZZING
/// libFuzzer's entry point; the target is chosen once per process.
private let selected = ProcessInfo.processInfo.environment["QUIRE_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let selected else {
        FileHandle.standardError.write(Data("set QUIRE_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    selected.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// SwiftPM links an executable's entry point under the name `<module>_main`; here it hands the
/// process to libFuzzer's driver.
@_cdecl("quire_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
}
#else
@main
struct QuireFuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 3, arguments[0] == "replay", let target = FuzzTarget(rawValue: arguments[1]) else {
            print("usage: quire-fuzz replay {\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))} FILE|DIR…")
            exit(2)
        }
        var inputs: [URL] = []
        for path in arguments.dropFirst(2) {
            let url = URL(fileURLWithPath: path)
            let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [url]
            inputs += files.sorted { $0.path < $1.path }
        }
        var replayed = 0
        for input in inputs {
            guard let data = try? Data(contentsOf: input) else {
                print("quire-fuzz: cannot read \(input.path)")
                exit(1)
            }
            target.run(data)
            replayed += 1
        }
        print("quire-fuzz \(target.rawValue): \(replayed) inputs replayed, none crashed")
    }
}
#endif
