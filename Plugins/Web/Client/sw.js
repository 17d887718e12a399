// The service worker: the app shell and this version's assets are kept, so the app opens without
// a network. API calls are never cached here: the client keeps the user's records in IndexedDB.
const VERSION = "{{VERSION}}";
const SHELL = `quire-shell-${VERSION}`;
// Every asset of this version, listed by the server when it serves this file.
const ASSETS = /** @type {string[]} */ ({{ASSETS}}).map((file) => `/app/${VERSION}/${file}`);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(["/", "/manifest.webmanifest", ...ASSETS])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key.startsWith("quire-shell-") && key !== SHELL).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

// "Share to Napkin" (the manifest's share_target, apps with web: share_target): the shared title,
// text, link and first image are kept in IndexedDB (quire-share, as share-target.js reads it), and
// the app opens #/share, which makes the note through the outbox: offline too.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "POST" || url.origin !== location.origin || url.pathname !== "/share-target") return;
  event.respondWith(keepShared(event.request).then(() => Response.redirect("/#/share", 303),
    () => Response.redirect("/#/share?missed=1", 303)));
});

/** @param {Request} request */
async function keepShared(request) {
  const form = await request.formData();
  const files = [...form.getAll("photo"), ...form.getAll("file")].filter((item) => typeof item !== "string" && item.size > 0);
  const item = { title: String(form.get("title") ?? ""), text: String(form.get("text") ?? ""), url: String(form.get("url") ?? ""),
    photo: files[0] ?? null, at: Date.now() };
  const db = await new Promise((resolve, reject) => {
    const open = indexedDB.open("quire-share", 1);
    open.onupgradeneeded = () => { open.result.createObjectStore("shared", { autoIncrement: true }); };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  await new Promise((resolve, reject) => {
    const tx = db.transaction("shared", "readwrite");
    tx.objectStore("shared").add(item);
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  if (url.pathname.startsWith("/vendor/")) {
    // Leaflet (Debian's, for the maps): kept once fetched, so a map opens offline too.
    event.respondWith(caches.open("quire-vendor").then(async (cache) => (await cache.match(event.request)) ?? fetch(event.request).then((response) => {
      if (response.ok) cache.put(event.request, response.clone());
      return response;
    })));
    return;
  }
  if (url.pathname.startsWith("/app/")) {
    // Immutable: the cache first, the network for anything not kept.
    event.respondWith(caches.match(event.request).then((hit) => hit ?? fetch(event.request)));
    return;
  }
  // The shell: the network first (it names the newest assets), the kept copy offline.
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok && url.pathname === "/") caches.open(SHELL).then((cache) => cache.put("/", response.clone()));
    return response;
  }).catch(() => caches.match(url.pathname === "/" || event.request.mode === "navigate" ? "/" : event.request)
    .then((hit) => hit ?? new Response("Offline", { status: 503 }))));
});

// Web Push (the push plugin): the server's notification, decrypted by the browser — a reminder,
// a pinned notebook nearby, "On this day". A tag makes a repeat replace the one before; a tap
// opens (or brings forward) the app at the screen it names.
self.addEventListener("push", (event) => {
  /** @type {{title?: string, body?: string, tag?: string, url?: string, icon?: string}} */
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = message.title || "Something to see";
  event.waitUntil(self.registration.showNotification(title, {
    body: message.body ?? "", tag: message.tag || undefined, icon: message.icon || "/icon-192.png", badge: "/icon-192.png",
    data: { url: typeof message.url === "string" && message.url.startsWith("#/") ? message.url : "#/" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(`/${event.notification.data?.url ?? "#/"}`, location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((client) => new URL(client.url).origin === location.origin);
    if (open) return open.navigate(target).then((client) => (client ?? open).focus());
    return self.clients.openWindow(target);
  }));
});
