import CQuireZlib
import Foundation

/// gzip (RFC 1952) at the best compression, for assets compressed once when the plugin starts.
enum Gzip {
    static func compress(_ data: Data) -> Data? {
        var stream = z_stream()
        guard quire_gzip_init(&stream) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, UInt(data.count))) + 32)
        let written: Int? = data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int? in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int? in
                guard let inBase = input.bindMemory(to: Bytef.self).baseAddress ?? UnsafePointer(bitPattern: 1),
                      let outBase = out.bindMemory(to: Bytef.self).baseAddress else { return nil }
                stream.next_in = UnsafeMutablePointer(mutating: inBase)
                stream.avail_in = uInt(input.count)
                stream.next_out = outBase
                stream.avail_out = uInt(out.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return out.count - Int(stream.avail_out)
            }
        }
        guard let written else { return nil }
        return output.prefix(written)
    }
}
