import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Edit picture and crop (features 7 and 8): crop, turn and straighten on the server (libvips), the
/// original kept so a revert is exact, and the mark-up moved with the picture both ways.
@Suite("iRemember: editing a picture moves its mark-up, and a revert brings both back")
struct AlbumPictureEditTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    typealias JSON = [String: any Sendable]

    /// The first stroke's points and the texts of a photo's mark-up.
    static func markup(_ client: APIClient, _ id: String, token: String) async throws -> (points: [(Double, Double)], texts: [JSON], aspect: Double?) {
        let reply = try await client.send(.get, "/api/v1/album/photos/\(id)/markup", token: token)
        let strokes = reply.json["strokes"] as? [JSON] ?? []
        let points = (strokes.first?["points"] as? [JSON] ?? []).map { ($0["x"] as? Double ?? .nan, $0["y"] as? Double ?? .nan) }
        return (points, reply.json["texts"] as? [JSON] ?? [], reply.json["aspect"] as? Double)
    }

    static func near(_ got: [(Double, Double)], _ want: [(Double, Double)], within tolerance: Double = 1e-6) -> Bool {
        got.count == want.count && zip(got, want).allSatisfy { abs($0.0 - $1.0) <= tolerance && abs($0.1 - $1.1) <= tolerance }
    }

    @Test("crop then turn: the picture is the part framed, turned; the drawing moves with it; revert is the original, drawing and all")
    func cropTurnRevert() async throws {
        let jpeg = try await photos.jpeg(seed: 21)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let stroke: JSON = ["color": "#ff0000", "width": 0.02, "points": [["x": 0.75, "y": 0.25], ["x": 0.6, "y": 0.1]] as [JSON]]
            let drawing: JSON = ["strokes": [stroke], "texts": [["text": "Lucy", "x": 0.1, "y": 0.9] as JSON], "aspect": 320.0 / 240.0]
            let marked = try await client.send(.put, "/api/v1/album/photos/\(id)/markup", json: drawing, token: token)
            #expect(marked.status == 200)

            // The top-right quarter.
            let cropped = try await client.send(.post, "/api/v1/album/photos/\(id)/edit",
                                                json: ["crop": ["x": 0.5, "y": 0.0, "width": 0.5, "height": 0.5] as JSON], token: token)
            #expect(cropped.status == 200, "\(cropped.text)")
            #expect(cropped.json["width"] as? Int == 160 && cropped.json["height"] as? Int == 120)
            #expect(cropped.json["edited"] as? Bool == true)
            var now = try await Self.markup(client, id, token: token)
            #expect(Self.near(now.points, [(0.5, 0.5), (0.2, 0.2)]), "the stroke kept its place on the picture: \(now.points)")
            #expect(now.texts.isEmpty, "the text was on the part cropped away")
            #expect(abs((now.aspect ?? 0) - 160.0 / 120.0) < 1e-9)

            // A quarter turn to the right: (x, y) → (1 − y, x), and the picture stands up.
            let version = try #require(cropped.json["version"] as? Int)
            var ifMatch = HTTPFields()
            ifMatch[.ifMatch] = "\"\(version)\""
            let turned = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: ["rotate": 90] as JSON, token: token, headers: ifMatch)
            #expect(turned.json["width"] as? Int == 120 && turned.json["height"] as? Int == 160)
            now = try await Self.markup(client, id, token: token)
            #expect(Self.near(now.points, [(0.5, 0.5), (0.8, 0.2)]), "turned with the picture: \(now.points)")

            // Back to the original: the uploaded bytes, the stroke where it was drawn.
            let reverted = try await client.send(.post, "/api/v1/album/photos/\(id)/revert", token: token)
            #expect(reverted.status == 200, "\(reverted.text)")
            #expect(reverted.json["width"] as? Int == 320 && reverted.json["height"] as? Int == 240)
            #expect(reverted.json["edited"] as? Bool == false)
            let original = try await client.send(.get, "/api/v1/album/photos/\(id)/image", token: token)
            #expect(original.body == jpeg, "the revert is exact: the picture as it was added")
            now = try await Self.markup(client, id, token: token)
            #expect(Self.near(now.points, [(0.75, 0.25), (0.6, 0.1)]), "the stroke is back where it was drawn: \(now.points)")
            #expect(abs((now.aspect ?? 0) - 320.0 / 240.0) < 1e-9)

            let again = try await client.send(.post, "/api/v1/album/photos/\(id)/revert", token: token)
            #expect(again.status == 409 && again.json["reason"] as? String == "not_edited")
        }
    }

    @Test("the same edit sent again on the version it was made from (a phone reloaded before its answer came) is answered as made: not refused, not cropped twice")
    func editSentAgain() async throws {
        let jpeg = try await photos.jpeg(seed: 22)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let added = try await client.addPhoto(jpeg, token: token)
            let id = try #require(added[string: "id"])
            let version = try #require(added["version"] as? Int)
            var ifMatch = HTTPFields()
            ifMatch[.ifMatch] = "\"\(version)\""
            let crop: JSON = ["crop": ["x": 0.5, "y": 0.0, "width": 0.5, "height": 0.5] as JSON]
            let first = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: crop, token: token, headers: ifMatch)
            #expect(first.status == 200, "\(first.text)")
            let again = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: crop, token: token, headers: ifMatch)
            #expect(again.status == 200, "answered as made, not 409 'changed': \(again.text)")
            #expect(again.json["width"] as? Int == 160 && again.json["height"] as? Int == 120, "cropped once, not twice")
            #expect(again.json["version"] as? Int == first.json["version"] as? Int, "nothing written again")
            // Another edit on that old version is still refused: only the very same edit is taken as made.
            let other = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: ["rotate": 90] as JSON, token: token, headers: ifMatch)
            #expect(other.status == 409, "\(other.text)")
        }
    }

    @Test("straightening turns the drawing about the centre with the picture and trims both; a revert turns it back exactly")
    func straighten() async throws {
        let jpeg = try await photos.jpeg(seed: 22)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let points: [JSON] = [["x": 0.5, "y": 0.5], ["x": 0.7, "y": 0.5], ["x": 0.3, "y": 0.4]]
            let drawing: JSON = ["strokes": [["color": "#00ff00", "width": 0.01, "points": points] as JSON], "aspect": 320.0 / 240.0]
            _ = try await client.send(.put, "/api/v1/album/photos/\(id)/markup", json: drawing, token: token)
            let straightened = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: ["straighten": 10.0] as JSON, token: token)
            #expect(straightened.status == 200, "\(straightened.text)")
            let width = try #require(straightened.json["width"] as? Int)
            #expect(width < 320 && width > 200, "trimmed to the rectangle inside the turned picture: \(width)")
            let now = try await Self.markup(client, id, token: token)
            // The centre stays; a point right of it goes down and right (clockwise), farther out (the picture was trimmed).
            #expect(Self.near([now.points[0]], [(0.5, 0.5)]))
            let angle = 10.0 * Double.pi / 180
            let scale = 3.0 / (4 * sin(angle) + 3 * cos(angle))
            let expected = (0.5 + 0.2 * cos(angle) / scale, 0.5 + 0.2 * 320 / 240 * sin(angle) / scale)
            #expect(Self.near([now.points[1]], [expected]), "\(now.points[1]) ≠ \(expected)")
            _ = try await client.send(.post, "/api/v1/album/photos/\(id)/revert", token: token)
            let back = try await Self.markup(client, id, token: token)
            #expect(Self.near(back.points, [(0.5, 0.5), (0.7, 0.5), (0.3, 0.4)]), "\(back.points)")
        }
    }

    @Test("an edit that says nothing, or too much, is refused with the field to fix; a photo without mark-up stays without")
    func refusals() async throws {
        let jpeg = try await photos.jpeg(seed: 23)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let nothing = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: [:] as JSON, token: token)
            #expect(nothing.status == 400 || nothing.status == 422, "\(nothing.text)")
            let tooFar = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: ["straighten": 60.0] as JSON, token: token)
            #expect(tooFar.status == 400 || tooFar.status == 422, "\(tooFar.text)")
            let turned = try await client.send(.post, "/api/v1/album/photos/\(id)/edit", json: ["rotate": 270] as JSON, token: token)
            #expect(turned.status == 200 && turned.json["hasMarkup"] as? Bool == false)
            #expect(turned.json["width"] as? Int == 240)
        }
    }
}
