import NIOCore
@testable import Notes
import Testing

@Suite("Note list cache")
struct NoteListCacheTests {
    let key = NoteListCache.PageKey(limit: 100, cursor: nil)
    func page(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("a stored page is served until the owner's notes change")
    func hitThenInvalidate() {
        let cache = NoteListCache(capacity: 1 << 20)
        cache.store(page("v1"), owner: "ada", key: key, generation: cache.generation("ada"))
        #expect(cache.page(owner: "ada", key: key) == page("v1"))
        #expect(cache.page(owner: "bob", key: key) == nil, "per owner")
        cache.invalidate("ada")
        #expect(cache.page(owner: "ada", key: key) == nil)
    }

    @Test("a page read before a write finished is never stored")
    func compareAndSet() {
        let cache = NoteListCache(capacity: 1 << 20)
        let before = cache.generation("ada")  // a list starts reading...
        cache.invalidate("ada")                // ...a write happens meanwhile...
        cache.store(page("stale"), owner: "ada", key: key, generation: before)  // ...the list tries to keep its page
        #expect(cache.page(owner: "ada", key: key) == nil)
    }

    @Test("while the bus is away nothing is served or kept; back, the cache starts empty and works again")
    func suspended() {
        let cache = NoteListCache(capacity: 1 << 20)
        cache.store(page("v1"), owner: "ada", key: key, generation: cache.generation("ada"))
        cache.invalidateAll(suspended: true)
        #expect(cache.page(owner: "ada", key: key) == nil)
        cache.store(page("v2"), owner: "ada", key: key, generation: cache.generation("ada"))
        #expect(cache.page(owner: "ada", key: key) == nil, "not kept while away")
        cache.invalidateAll(suspended: false)
        #expect(cache.page(owner: "ada", key: key) == nil)
        cache.store(page("v3"), owner: "ada", key: key, generation: cache.generation("ada"))
        #expect(cache.page(owner: "ada", key: key) == page("v3"))
        #expect(cache.storedBytes == 2)
    }

    @Test("a page read before the whole cache was cleared is never stored, even for an owner it had never seen")
    func clearedWhileReading() {
        let cache = NoteListCache(capacity: 1 << 20)
        let before = cache.generation("new")  // a list of an owner the cache never saw starts reading...
        cache.invalidateAll()                  // ...events are lost meanwhile...
        cache.store(page("stale"), owner: "new", key: key, generation: before)
        #expect(cache.page(owner: "new", key: key) == nil)
    }

    @Test("the byte budget holds, evicting the oldest owner first; 0 turns the cache off")
    func budget() {
        let cache = NoteListCache(capacity: 100)
        for owner in ["a", "b", "c", "d", "e"] {
            cache.store(page(String(repeating: "x", count: 25)), owner: owner, key: key, generation: cache.generation(owner))
        }
        #expect(cache.storedBytes <= 100)
        #expect(cache.page(owner: "a", key: key) == nil)
        #expect(cache.page(owner: "e", key: key) != nil)
        let off = NoteListCache(capacity: 0)
        off.store(page("x"), owner: "a", key: key, generation: off.generation("a"))
        #expect(off.page(owner: "a", key: key) == nil)
    }
}
