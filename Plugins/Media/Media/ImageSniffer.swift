import Foundation
public import MediaAPI

/// Recognises an image format from its first bytes.
public enum ImageSniffer {
    public static func format(of bytes: Data) -> ImageFormat? { ImageFormat.sniff(bytes.prefix(32)) }
}
