import CQRencode

/// QR codes, drawn on the server (libqrencode) so the LAN setup page needs nothing from the network.
public enum QRCode {
    /// The modules (true = dark), row by row, of `text` at error-correction level M; nil when it
    /// does not fit in a QR code.
    public static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// An SVG image of `text`'s QR code with a four-module quiet zone; nil when it does not fit.
    public static func svg(_ text: String, pixelsPerModule: Int = 6) -> String? {
        guard let modules = modules(text) else { return nil }
        let size = modules.count + 8
        var path = ""
        for (row, line) in modules.enumerated() {
            for (column, dark) in line.enumerated() where dark {
                path += "M\(column + 4) \(row + 4)h1v1h-1z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(size * pixelsPerModule)" \
            height="\(size * pixelsPerModule)" shape-rendering="crispEdges" role="img" aria-label="QR code">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
