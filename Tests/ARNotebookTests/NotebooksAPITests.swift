@testable import Quotas
@testable import DeviceMonitor
import DeviceMonitorAPI
import AppHost
import Bus
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// AR Notebook's plugins as a test app: in-memory storage, a small page, the shipped limits.
enum ARNotebook {
    static func yaml(quotas: String = "{ max_image_bytes: 10485760, max_connections: 100, ops_per_user_per_day: 90000, max_stored_bytes_per_user: 5368709120 }")
        -> String {
        TestApp.yaml(app: "ar-notebook-test", extraPlugins: """
              media: { max_upload_bytes: 10485760, renditions: [{ name: share, width: 400, height: 400, format: jpeg }] }
              geo: {}
              share-link: { resolves_per_minute: 1000 }
              notebooks: { page_width: 600, page_height: 800, max_pages: 5, nearby_radius_meters: 100, presence_minutes: 15 }
              device-monitor: { battery_critical_percent: 5, min_colour_temperature: 4000, min_lux: 50 }
              quotas: \(quotas)

            """)
    }

    static let base = "/api/v1/notebooks"
}

extension APIClient {
    /// A new notebook's id.
    func notebook(_ token: String, name: String = "Biology") async throws -> String {
        let created = try await send(.post, "\(ARNotebook.base)/notebooks", json: ["name": name, "cover": "colors"], token: token)
        guard created.status == 201, let id = created[string: "id"] else { throw TestAppFailure("create notebook: \(created.status) \(created.text)") }
        return id
    }

    @discardableResult
    func page(_ token: String, _ notebook: String, template: String = "blank") async throws -> Reply {
        try await send(.post, "\(ARNotebook.base)/notebooks/\(notebook)/pages", json: ["template": template], token: token)
    }
}

@Suite("AR Notebook over HTTP: notebooks, pages, inserts, undo, deletes, sharing, pins")
struct NotebooksAPITests {
    @Test("opening with nothing gives a new default notebook, then the last one opened (FR3.2.14)")
    func open() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let first = try await client.send(.post, "\(ARNotebook.base)/open", json: [String: String](), token: token)
            #expect(first.status == 200)
            let defaultID = try #require((first[object: "notebook"])?["id"] as? String)
            let other = try await client.notebook(token, name: "Chemistry")
            _ = try await client.send(.post, "\(ARNotebook.base)/open", json: ["id": other], token: token)
            let again = try await client.send(.post, "\(ARNotebook.base)/open", json: [String: String](), token: token)
            #expect((again[object: "notebook"])?["id"] as? String == other)
            let listed = try await client.send(.get, "\(ARNotebook.base)/notebooks", token: token)
            #expect(listed.items.compactMap { $0["id"] as? String } == [other, defaultID], "most recently opened first")
        }
    }

    @Test("templates place inserts in free slots, then centred; clipboard text over 140 characters is refused with a sentence")
    func inserts() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            #expect(try await client.page(token, id, template: "two-slots").status == 201)
            let items = "\(ARNotebook.base)/notebooks/\(id)/pages/1/items"
            let first = try await client.send(.post, items, json: ["kind": "text", "text": "Cells"], token: token)
            let second = try await client.send(.post, items, json: ["kind": "text", "text": "Mitochondria"], token: token)
            let third = try await client.send(.post, items, json: ["kind": "text", "text": "Extra"], token: token)
            #expect(first.status == 201 && second.status == 201 && third.status == 201)
            #expect((first[object: "item"])?["slot"] as? Int == 0)
            #expect((second[object: "item"])?["slot"] as? Int == 1)
            #expect((third[object: "item"])?["slot"] as? Int == nil, "no slot left: centred")
            let taken = try await client.send(.post, items, json: ["kind": "text", "text": "x", "slot": 0] as [String: any Sendable], token: token)
            #expect(taken.status == 409)

            let long = String(repeating: "a", count: 141)
            let refused = try await client.send(.post, items, json: ["kind": "clipboard", "text": long], token: token)
            #expect(refused.status == 422)
            #expect(refused[string: "detail"]?.contains("140 characters") == true)
            let fits = try await client.send(.post, items, json: ["kind": "clipboard", "text": String(repeating: "a", count: 140)], token: token)
            #expect(fits.status == 201)
            let blank = try await client.send(.post, items, json: ["kind": "text", "text": "   "], token: token)
            #expect(blank.status == 422)
        }
    }

    @Test("a frame past the page's edge is clamped, and the answer says so")
    func clamp() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let inserted = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "Hi"], token: token)
            let item = try #require((inserted[object: "item"])?["id"] as? String)
            let moved = try await client.send(.patch, "\(ARNotebook.base)/notebooks/\(id)/items/\(item)",
                                              json: ["frame": ["x": 550, "y": -20, "width": 100, "height": 50]] as [String: any Sendable], token: token)
            #expect(moved.status == 200)
            #expect(moved[bool: "clamped"] == true)
            let frame = try #require((moved[object: "item"])?["frame"] as? [String: any Sendable])
            #expect(frame["x"] as? Double == 500 && frame["y"] as? Double == 0)
        }
    }

    @Test("an image cover's picture must be an image item of that notebook (FR3.2.3); the walk sets a real one")
    func coverPicture() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let inserted = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "Hi"], token: token)
            let text = try #require((inserted[object: "item"])?["id"] as? String)
            for wrong in [text, "it_nothing"] {
                let refused = try await client.send(.patch, "\(ARNotebook.base)/notebooks/\(id)", json: ["cover": "image", "coverItem": wrong], token: token)
                #expect(refused.status == 422, "\(wrong): \(refused.text)")
                #expect(refused.text.contains("coverItem"))
            }
            let cleared = try await client.send(.patch, "\(ARNotebook.base)/notebooks/\(id)", json: ["cover": "image", "coverItem": NSNull()] as [String: any Sendable], token: token)
            #expect(cleared.status == 200)
            #expect(cleared[string: "cover"] == "image" && cleared[string: "coverItem"] == nil)
        }
    }

    @Test("undo removes the last insert once; a delete ends what undo can do")
    func undo() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let items = "\(ARNotebook.base)/notebooks/\(id)/pages/1/items"
            _ = try await client.send(.post, items, json: ["kind": "text", "text": "keep"], token: token)
            let last = try await client.send(.post, items, json: ["kind": "text", "text": "oops"], token: token)
            #expect(last[bool: "canUndo"] == true)
            let undone = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token)
            #expect(undone.status == 200)
            #expect((undone[object: "removed"])?["text"] as? String == "oops")
            let twice = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token)
            #expect(twice.status == 409)
            let page = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: token)
            #expect(((page[object: "page"])?["items"] as? [[String: any Sendable]])?.compactMap { $0["text"] as? String } == ["keep"])
        }
    }

    @Test("undo after a change of text puts the earlier text back (the item stays); not once the text changed again")
    func undoChange() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let added = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "first"], token: token)
            let item = try #require((added[object: "item"])?["id"] as? String)
            let path = "\(ARNotebook.base)/notebooks/\(id)/items/\(item)"
            #expect(try await client.send(.patch, path, json: ["text": "first, corrected"], token: token).status == 200)
            let undone = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token)
            #expect(undone.status == 200)
            #expect((undone[object: "restored"])?["text"] as? String == "first")
            #expect(undone[object: "removed"] == nil)
            let page = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: token)
            #expect(((page[object: "page"])?["items"] as? [[String: any Sendable]])?.compactMap { $0["text"] as? String } == ["first"])
            #expect(try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token).status == 409)
            // Changed twice (the second as if on another phone, without undo between): undo takes back only the last.
            _ = try await client.send(.patch, path, json: ["text": "second"], token: token)
            _ = try await client.send(.patch, path, json: ["text": "third"], token: token)
            #expect((try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token)[object: "restored"])?["text"] as? String == "second")
        }
    }

    @Test("undo after a move or resize puts the item back where it was (it was the last thing done); the insert before stays")
    func undoMove() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let added = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "moved by mistake"], token: token)
            let item = try #require((added[object: "item"])?["id"] as? String)
            let before = try #require(added[object: "item"]?["frame"] as? [String: any Sendable])
            let path = "\(ARNotebook.base)/notebooks/\(id)/items/\(item)"
            let moved = try await client.send(.patch, path, json: ["frame": ["x": 10, "y": 20, "width": 150, "height": 60]], token: token)
            #expect(moved.status == 200)
            let notebook = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: token)
            #expect((notebook.json["notebook"] as? [String: any Sendable])?["canUndo"] as? Bool == true)
            let undone = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token)
            #expect(undone.status == 200)
            #expect(undone[object: "removed"] == nil, "the move is undone, not the insert before it")
            let restored = try #require(undone[object: "restored"]?["frame"] as? [String: any Sendable])
            #expect(try #require(moved[object: "item"]?["frame"] as? [String: any Sendable])["x"] as? Double == 10, "it did move")
            for key in ["x", "y", "width", "height"] {
                let was = try #require(before[key] as? Double)
                #expect(restored[key] as? Double == was, "\(key) back to what it was")
            }
            let page = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: token)
            #expect(((page[object: "page"])?["items"] as? [[String: any Sendable]])?.compactMap { $0["text"] as? String } == ["moved by mistake"])
            #expect(try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/undo", token: token).status == 409)
        }
    }

    @Test("undo naming this device's last item never takes back what another device did since (409 changed_elsewhere)")
    func undoOnTwoPhones() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let items = "\(ARNotebook.base)/notebooks/\(id)/pages/1/items"
            let first = try await client.send(.post, items, json: ["kind": "text", "text": "phone A's"], token: token)
            let mine = try #require(first[object: "item"]?["id"] as? String)
            let second = try await client.send(.post, items, json: ["kind": "text", "text": "phone B's"], token: token)
            let theirs = try #require(second[object: "item"]?["id"] as? String)
            let undo = "\(ARNotebook.base)/notebooks/\(id)/undo"
            let refused = try await client.send(.post, undo, json: ["item": mine], token: token)
            #expect(refused.status == 409)
            #expect(refused["reason"] == "changed_elsewhere", "\(refused.text)")
            let page = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: token)
            #expect(((page[object: "page"])?["items"] as? [[String: any Sendable]])?.compactMap { $0["text"] as? String } == ["phone A's", "phone B's"],
                    "phone B's text is still there")
            #expect(try await client.send(.post, undo, json: ["item": ""], token: token)["reason"] == "changed_elsewhere",
                    "a device that did nothing of its own has nothing to undo")
            let undone = try await client.send(.post, undo, json: ["item": theirs], token: token)
            #expect(undone.status == 200)
            #expect(undone[object: "removed"]?["id"] as? String == theirs, "phone B's own undo takes back its text")
            #expect(try await client.send(.post, undo, json: ["item": "not an id!"], token: token).status == 422)
        }
    }

    @Test("a change of a text sent again with its Idempotency-Key (a reload cut its answer off) is answered with the item as it is, not made over a later change")
    func itemEditSentAgain() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let added = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "Porto"], token: token)
            let item = try #require(added[object: "item"]?["id"] as? String)
            let path = "\(ARNotebook.base)/notebooks/\(id)/items/\(item)"
            let key = try #require(HTTPField.Name("Idempotency-Key"))
            #expect(try await client.send(.patch, path, json: ["text": "Porto. A"], token: token, headers: [.ifMatch: "\"1\"", key: "item-a"]).status == 200)
            #expect(try await client.send(.patch, path, json: ["text": "Porto. B"], token: token, headers: [.ifMatch: "\"1\"", key: "item-b"]).status == 200)
            let again = try await client.send(.patch, path, json: ["text": "Porto. A"], token: token, headers: [.ifMatch: "\"1\"", key: "item-a"])
            #expect(again.status == 200)
            #expect(again[object: "item"]?["text"] as? String == "Porto. B", "A's change is not made a second time over B's")
            let page = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: token)
            #expect(((page[object: "page"])?["items"] as? [[String: any Sendable]])?.compactMap { $0["text"] as? String } == ["Porto. B"])
        }
    }

    @Test("deleting a page or a notebook asks first (428 with a token tied to what the user saw)")
    func confirmedDeletes() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            try await client.page(token, id)
            let ask = try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pages/2", token: token)
            #expect(ask.status == 428)
            let confirm = try #require(ask[string: "confirm"])
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pages/2?confirm=wrong", token: token).status == 428)
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pages/2?confirm=\(confirm)", token: token).status == 204)
            let content = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: token)
            #expect((content.json["pages"] as? [Any])?.count == 1)

            let askNotebook = try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)", token: token)
            #expect(askNotebook.status == 428)
            #expect(askNotebook[string: "detail"]?.contains("with its 1 page and 0 items?") == true, "one page, said so (it was \"1 pages\")")
            // A change after the question makes the old "yes" stale.
            try await client.page(token, id)
            let stale = try #require(askNotebook[string: "confirm"])
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)?confirm=\(stale)", token: token).status == 428)
            let fresh = try #require(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)", token: token)[string: "confirm"])
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)?confirm=\(fresh)", token: token).status == 204)
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: token).status == 404)
        }
    }

    @Test("a notebook holds max_pages pages; the refusal says to start another")
    func maxPages() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            for _ in 0..<5 { #expect(try await client.page(token, id).status == 201) }
            let sixth = try await client.page(token, id)
            #expect(sixth.status == 413)
            #expect(sixth[string: "detail"]?.contains("start another notebook") == true)
        }
    }

    @Test("read-only sharing: the recipient reads, never writes; another user without the link sees nothing")
    func sharing() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (owner, _) = try await client.signUp("ada")
            let (reader, _) = try await client.signUp("bea")
            let (stranger, _) = try await client.signUp("cal")
            let id = try await client.notebook(owner)
            try await client.page(owner, id)
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: stranger).status == 404)
            let link = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/share", json: [String: String](), token: owner)
            #expect(link.status == 201)
            let token = try #require(link[string: "token"])
            let accepted = try await client.send(.post, "\(ARNotebook.base)/shared", json: ["token": token], token: reader)
            #expect(accepted.status == 200)
            #expect((accepted[object: "notebook"])?["access"] as? String == "read")
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: reader).status == 200)
            let write = try await client.send(.post, "\(ARNotebook.base)/notebooks/\(id)/pages/1/items", json: ["kind": "text", "text": "mine"], token: reader)
            #expect(write.status == 403)
            #expect(write[string: "detail"]?.contains("read-only") == true)
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)", token: reader).status == 403)
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: stranger).status == 404)
        }
    }

    @Test("a pinned notebook is found by someone standing near it, and opened with the access its owner allowed")
    func pins() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (owner, _) = try await client.signUp("ada")
            let (walker, _) = try await client.signUp("bea")
            let id = try await client.notebook(owner, name: "Trail notes")
            let pinned = try await client.send(.put, "\(ARNotebook.base)/notebooks/\(id)/pin",
                                               json: ["latitude": 48.8584, "longitude": 2.2945, "allowEdits": true] as [String: any Sendable], token: owner)
            #expect(pinned.status == 200)
            let far = try await client.send(.post, "\(ARNotebook.base)/nearby", json: ["latitude": 48.87, "longitude": 2.30], token: walker)
            #expect(far.items.isEmpty)
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: walker).status == 404)
            let near = try await client.send(.post, "\(ARNotebook.base)/nearby", json: ["latitude": 48.8585, "longitude": 2.2946], token: walker)
            #expect(near.items.compactMap { ($0["notebook"] as? [String: any Sendable])?["id"] as? String } == [id])
            let opened = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(id)", token: walker)
            #expect(opened.status == 200)
            #expect((opened[object: "notebook"])?["access"] as? String == "edit")
            // A finder adds pages and texts, but a page's delete (no undo) is the owner's (walk11: one wiped a page of the owner's texts).
            #expect(try await client.page(walker, id).status == 201, "a finder with edit rights adds a page")
            let wiped = try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: walker)
            #expect(wiped.status == 403)
            #expect(wiped[string: "detail"]?.contains("Only the notebook's owner can delete a page") == true)
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pages/1", token: owner).status == 428, "its owner is asked to confirm")
            // FR3.2.17: a finder with edit rights may move the pin (keeping what the owner allowed) and remove it.
            let moved = try await client.send(.put, "\(ARNotebook.base)/notebooks/\(id)/pin",
                                              json: ["latitude": 48.8586, "longitude": 2.2947, "allowEdits": false] as [String: any Sendable], token: walker)
            #expect(moved.status == 200)
            #expect(moved[object: "pin"]?["allowEdits"] as? Bool == true, "a finder cannot change what the owner allowed")
            #expect(try await client.send(.delete, "\(ARNotebook.base)/notebooks/\(id)/pin", token: walker).status == 200, "a finder with edit rights unpins")
        }
    }
}

@Suite("AR Notebook over HTTP: the device monitor and quotas")
struct DeviceMonitorAndQuotasAPITests {
    @Test("battery: at or below 5 % the alert shows and cannot be dismissed until the device says it is charging")
    func battery() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let path = "/api/v1/device-monitor/battery"
            let fine = try await client.send(.post, path, json: ["level": 0.5, "unit": "fraction", "state": "discharging"] as [String: any Sendable], token: token)
            #expect(fine[bool: "alert"] == false)
            let low = try await client.send(.post, path, json: ["level": 4, "unit": "percent", "state": "discharging"] as [String: any Sendable], token: token)
            #expect(low[bool: "alert"] == true)
            let dismissed = try await client.send(.post, "\(path)/dismiss", token: token)
            #expect(dismissed.status == 409)
            #expect(dismissed[string: "reason"] == "battery_critical")
            #expect(try await client.send(.post, "\(path)/charging", token: token).status == 409, "\"I am charging\" needs the device's word")
            _ = try await client.send(.post, path, json: ["level": 4, "unit": "percent", "state": "charging"] as [String: any Sendable], token: token)
            #expect(try await client.send(.post, "\(path)/charging", token: token).status == 200)
            let after = try await client.send(.get, path, token: token)
            #expect(after[bool: "alert"] == false)
            let nonsense = try await client.send(.post, path, json: ["level": 140, "unit": "percent", "state": "discharging"] as [String: any Sendable], token: token)
            #expect(nonsense.status == 422)
        }
    }

    @Test("battery on a cluster: a reading another node took (its event) shows here; an older one does not replace a newer",
          .timeLimit(.minutes(1)))
    func batteryAcrossNodes() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, host in
            let (token, login) = try await client.signUp("ada")
            let account = try #require(login[string: "accountId"] ?? login.json["account_id"] as? String)
            let path = "/api/v1/device-monitor/battery"
            let told = host.bus.subscribe(to: BatteryReported.self)
            _ = try await client.send(.post, path, json: ["level": 50, "unit": "percent", "state": "discharging"] as [String: any Sendable], token: token)
            var mine: BatteryReported?
            for await event in told where event.user == account {
                mine = event
                break
            }
            #expect(mine?.reading.level == 50, "this node tells the others its reading")
            await host.bus.publish(BatteryReported(node: "another-node", user: account, reading: BatteryReading(level: 3, state: "discharging"), at: Date()))
            var status = try await client.send(.get, path, token: token)
            for _ in 0..<50 where status[bool: "alert"] != true {
                try await Task.sleep(for: .milliseconds(20))
                status = try await client.send(.get, path, token: token)
            }
            #expect(status[bool: "alert"] == true, "the other node's 3 % shows here: \(status.text)")
            await host.bus.publish(BatteryReported(node: "another-node", user: account, reading: BatteryReading(level: 80, state: "discharging"),
                                                   at: Date().addingTimeInterval(-60)))
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await client.send(.get, path, token: token)[bool: "alert"] == true, "a reading a minute old changes nothing")
        }
    }

    @Test("lighting from lux: dark warns, daylight does not")
    func lighting() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let dark = try await client.send(.post, "/api/v1/device-monitor/lighting", json: ["lux": 12], token: token)
            #expect(dark.json["warnings"] as? [String] == ["too_dark"])
            let bright = try await client.send(.post, "/api/v1/device-monitor/lighting", json: ["lux": 800], token: token)
            #expect(bright.json["warnings"] as? [String] == [])
        }
    }

    @Test("quotas: a day's operations and stored bytes are counted per user, refused past the limits with the limit's name")
    func quotas() async throws {
        let yaml = ARNotebook.yaml(quotas: "{ max_image_bytes: 10485760, max_connections: 100, ops_per_user_per_day: 12, max_stored_bytes_per_user: 4000 }")
        try await TestApp.run(yaml: yaml) { client, _ in
            let (token, _) = try await client.signUp("ada")
            let id = try await client.notebook(token)
            try await client.page(token, id)
            let items = "\(ARNotebook.base)/notebooks/\(id)/pages/1/items"
            var statuses: [Int] = []
            var refusal: APIClient.Reply?
            for _ in 0..<3 {
                let reply = try await client.send(.post, items, json: ["kind": "text", "text": String(repeating: "x", count: 1900)], token: token)
                statuses.append(reply.status)
                if reply.status == 507 { refusal = reply }
            }
            #expect(statuses.contains(507), "about 4,000 bytes of text is past max_stored_bytes_per_user")
            #expect(refusal?.text.contains("max_stored_bytes_per_user") == true)
            let usage = try await client.send(.get, "/api/v1/quotas/usage", token: token)
            #expect(usage.status == 200)
            #expect((usage.json["maxStoredBytes"] as? Int) == 4000)
            var limited: APIClient.Reply?
            for _ in 0..<15 {
                let reply = try await client.send(.get, "\(ARNotebook.base)/notebooks", token: token)
                if reply.status == 429 { limited = reply; break }
            }
            let refused = try #require(limited)
            #expect(Int(refused.headers[.retryAfter] ?? "0") ?? 0 > 0)
            #expect(refused[string: "detail"]?.contains("ops_per_user_per_day") == true)
            let (other, _) = try await client.signUp("bea")
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks", token: other).status == 200, "another user's day is their own")
        }
    }

    @Test("quotas on a cluster: operations another node counted (its QuotaUsed event) count here too; this node tells its own",
          .timeLimit(.minutes(1)))
    func quotasAcrossNodes() async throws {
        let yaml = ARNotebook.yaml(quotas: "{ max_image_bytes: 10485760, max_connections: 100, ops_per_user_per_day: 10, max_stored_bytes_per_user: 5368709120 }")
        try await TestApp.run(yaml: yaml) { client, host in
            let told = host.bus.subscribe(to: QuotaUsed.self)
            let (token, login) = try await client.signUp("cyd")
            let account = try #require(login[string: "accountId"] ?? login.json["account_id"] as? String)
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks", token: token).status == 200)
            // Within half a second this node says what it counted: one operation of cy's at least.
            var mine: QuotaUsed?
            for await event in told where event.node == ThisNode.id && (event.operations[account] ?? 0) > 0 {
                mine = event
                break
            }
            #expect(mine != nil)
            // Another node served cy 8 times today: the next two requests here are the 10th and 11th.
            let day = Int(Date().timeIntervalSince1970 / 86_400)
            await host.bus.publish(QuotaUsed(node: "another-node", day: day, operations: [account: 8], bytes: [:]))
            // cyd made 1 operation here: alone, 9 more would pass. With the other node's 8, the 10th is the next one.
            try await Task.sleep(for: .milliseconds(300))
            var statuses: [Int] = []
            for _ in 0..<12 where statuses.last != 429 {
                statuses.append(try await client.send(.get, "\(ARNotebook.base)/notebooks", token: token).status)
            }
            #expect(statuses.last == 429 && statuses.count <= 3, "the other node's operations count here: \(statuses)")
        }
    }
}

extension APIClient.Reply {
    subscript(string key: String) -> String? { json[key] as? String }
    subscript(object key: String) -> [String: any Sendable]? { json[key] as? [String: any Sendable] }
    subscript(bool key: String) -> Bool? { json[key] as? Bool }
}
