// @ts-check
/**
 * AR Notebook as this phone has it: the notebooks, pages and items the sync feed brought (kept in
 * IndexedDB by `sync.js`), with this phone's changes still waiting in the outbox applied on top,
 * in the shape the server's `GET /notebooks/{id}` answers. Pure functions over `sync.records` and
 * `sync.writes`: the screen reads the notebook from here online and offline alike, so it opens
 * without a network and follows every sync.
 *
 * Queued writes name pages by their id (the server accepts a page's id where a number goes), so
 * a change made offline lands on the page it was made on, wherever other changes moved it since.
 */

export const N = "/api/v1/notebooks";
export const NOTEBOOK = "notebooks.notebook";
export const PAGE = "notebooks.page";
export const ITEM = "notebooks.item";

/** @typedef {{x: number, y: number, width: number, height: number}} Frame */
/** @typedef {{id: string, kind: string, text?: string, image?: string, blob?: Blob, frame: Frame, slot?: number | null, seq: number, version?: number, pending?: boolean, page?: string}} Item */
/** @typedef {{id: string, number: number, template: string, slots: Frame[], background: string, items: Item[], version?: number, pending?: boolean}} Page */
/** @typedef {{id: string, name: string, cover: string, coverText?: string, coverItem?: string, pageCount: number, canUndo: boolean, access: string, pin?: any, version: number, openedAt?: string, pending?: boolean}} Notebook */
/** @typedef {{notebook: Notebook, pages: Page[]}} Content */
/** @typedef {{pageWidth: number, pageHeight: number, templates: Array<{id: string, slots: Frame[]}>, covers: any[], palette: any[], clipboardMaxCharacters: number}} Catalog */

const PATH = /^\/api\/v1\/notebooks\/notebooks\/([^/?]+)(?:\/(pages|items|undo)(?:\/([^/?]+)(?:\/(items))?)?)?(?:\?.*)?$/;

/** Said in Change the text when "Bring back theirs" opens it with both texts. */
export const BOTH_TEXTS = "Both texts are here, the other device's first, then yours: keep what should stay and Save.";

/**
 * What "Bring back theirs" opens Change the text with: the text another device had written, then
 * this phone's (once, when they are the same or this phone's is empty).
 * @param {string} theirs @param {string} mine
 */
export function bothTexts(theirs, mine) {
  return !mine || mine === theirs ? theirs : `${theirs}\n${mine}`;
}

/**
 * What a queued write does to a notebook, read from its path.
 * @param {import("./outbox.js").Write} write
 * @returns {{notebook: string, what: "create" | "rename" | "page" | "background" | "insert" | "item" | "remove" | "undo" | "other", target?: string} | null}
 */
export function writeOf(write) {
  if (write.method === "POST" && write.path === `${N}/notebooks`) return { notebook: write.id, what: "create" };
  const match = PATH.exec(write.path);
  if (!match) return null;
  const [, notebook, section, target, sub] = match;
  if (!section) return { notebook, what: write.method === "PATCH" ? "rename" : "other" };
  if (section === "undo") return { notebook, what: "undo" };
  if (section === "pages" && !target) return { notebook, what: write.method === "POST" ? "page" : "other" };
  if (section === "pages" && sub === "items") return { notebook, what: "insert", target };
  if (section === "pages") return { notebook, what: write.method === "PATCH" ? "background" : "other", target };
  if (section === "items" && write.method === "PATCH") return { notebook, what: "item", target };
  if (section === "items" && write.method === "DELETE") return { notebook, what: "remove", target };
  return { notebook, what: "other" };
}

/** The writes waiting for the network that change notebook `id`. @param {import("./sync.js").Sync} sync @param {string} id */
export function waitingFor(sync, id) {
  return sync.writes.filter((write) => writeOf(write)?.notebook === id);
}

/** The template's slots. @param {Catalog} catalog @param {string} template */
export function slotsOf(catalog, template) {
  return catalog.templates.find((t) => t.id === template)?.slots ?? [];
}

/**
 * Where the server puts a new item (NotebookLayout.place): in its slot, else centred; a picture
 * keeps its shape; without a slot, off the frames already on the page (`avoiding`). Drawn this way
 * until the server's answer comes.
 * @param {Catalog} catalog @param {Frame | undefined} slot @param {number} [aspect] @param {Frame[]} [avoiding]
 */
export function placed(catalog, slot, aspect, avoiding = []) {
  const W = catalog.pageWidth, H = catalog.pageHeight;
  const box = slot ?? { x: W * 0.1, y: H * 0.3, width: W * 0.8, height: H * 0.4 };
  let width = box.width, height = box.height;
  if (aspect && Number.isFinite(aspect) && aspect > 0) {
    if (box.width / box.height > aspect) width = box.height * aspect;
    else height = box.width / aspect;
  } else if (!slot) {
    height = Math.min(box.height, H * 0.15);
  }
  const centred = { x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2, width, height };
  return slot || !avoiding.length ? centred : apart(centred, avoiding, H);
}

/**
 * `frame` moved up or down the page (its x kept) off the frames of `others`, as the server places
 * an item without a slot (NotebookLayout.apart): the nearest place covering none of them, below
 * first; with none, where its middle is farthest from theirs. An offline second text was drawn
 * exactly over the first until the server placed it (walk9).
 * @param {Frame} frame @param {Frame[]} others @param {number} pageHeight
 * @returns {Frame}
 */
export function apart(frame, others, pageHeight) {
  const gap = 8, step = 10, margin = 40;
  const top = Math.min(margin, Math.max(0, pageHeight - frame.height) / 2);
  const bottom = Math.max(top, pageHeight - top - frame.height);
  const candidates = [frame.y];
  for (let offset = step; frame.y - offset >= top || frame.y + offset <= bottom; offset += step) {
    if (frame.y + offset <= bottom) candidates.push(frame.y + offset);
    if (frame.y - offset >= top) candidates.push(frame.y - offset);
  }
  candidates.push(bottom, top);
  const at = (/** @type {number} */ y) => ({ ...frame, y });
  const covers = (/** @type {Frame} */ a, /** @type {Frame} */ b) =>
    a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap;
  const free = candidates.find((y) => !others.some((other) => covers(at(y), other)));
  if (free !== undefined) return at(free);
  const distance = (/** @type {number} */ y) => Math.min(...others.map((o) =>
    Math.hypot(o.x + o.width / 2 - (frame.x + frame.width / 2), o.y + o.height / 2 - (y + frame.height / 2))));
  let best = candidates[0];
  for (const y of candidates) if (distance(y) > distance(best)) best = y;
  return at(best);
}

/** The slots of a page no item holds. @param {Page} page */
export function freeSlots(page) {
  const taken = new Set(page.items.map((item) => item.slot).filter((slot) => typeof slot === "number"));
  return page.slots.map((_, index) => index).filter((index) => !taken.has(index));
}

/**
 * The notebook as this phone has it, or null when the feed has not brought it.
 * @param {import("./sync.js").Sync} sync @param {string} id @param {Catalog} catalog
 * @returns {Content | null}
 */
export function localContent(sync, id, catalog) {
  const records = sync.records;
  const held = records.get(`${NOTEBOOK}/${id}`);
  const writes = waitingFor(sync, id);
  const created = writes.find((write) => writeOf(write)?.what === "create");
  if (!held && !created) return null;
  /** @type {Notebook & {pages?: string[]}} */
  const notebook = held ? { ...held } : { ...created?.body, id, pageCount: 0, canUndo: false, access: "owner", version: 0, pending: true };
  /** @type {string[]} */
  let order = Array.isArray(held?.pages) ? [...held.pages] : [];
  /** @type {Map<string, Page>} */
  const pages = new Map();
  /** @type {Map<string, Item>} */
  const items = new Map();
  for (const [key, value] of records) {
    if (value?.notebook !== id) continue;
    if (key.startsWith(`${PAGE}/`)) pages.set(value.id, { ...value, slots: slotsOf(catalog, value.template), items: [] });
    else if (key.startsWith(`${ITEM}/`)) items.set(value.id, { ...value, kind: value.itemKind ?? value.kind });
  }
  // What undo takes back among the writes still waiting: their last insert, or their last change of
  // an item (its text and frame before: a change of text, a move, a resize). What the server would
  // undo (its last insert or change) is left to it.
  /** @type {string | null} */
  let last = null;
  /** @type {{id: string, text?: string, frame?: Frame} | null} */
  let edited = null;
  let canUndo = Boolean(notebook.canUndo);
  let nextSeq = Math.max(0, ...[...items.values()].map((item) => item.seq ?? 0)) + 1;
  for (const write of writes) {
    const what = writeOf(write);
    if (!what) continue;
    const body = write.body instanceof Blob ? null : write.body ?? {};
    if (what.what === "rename" && body) Object.assign(notebook, body, { pending: true });
    else if (what.what === "page" && body) {
      const at = Math.max(0, Math.min(order.length, typeof body.after === "number" ? body.after : order.length));
      order.splice(at, 0, write.id);
      pages.set(write.id, { id: write.id, number: 0, template: body.template ?? "blank", background: body.background ?? "white",
        slots: slotsOf(catalog, body.template ?? "blank"), items: [], pending: true });
    } else if (what.what === "background" && body && what.target) {
      const page = pages.get(what.target);
      if (page) pages.set(page.id, { ...page, ...body, pending: true });
    } else if (what.what === "insert" && what.target) {
      const local = write.local ?? {};
      items.set(write.id, { id: write.id, kind: local.kind ?? "text", text: local.text, blob: write.body instanceof Blob ? write.body : undefined,
        frame: local.frame, slot: local.slot ?? null, seq: nextSeq++, pending: true, page: what.target });
      last = write.id;
      edited = null;
      canUndo = true;
    } else if (what.what === "item" && body && what.target) {
      const item = items.get(what.target);
      if (item) items.set(item.id, { ...item, ...body, ...(write.local ?? {}), pending: true });
      const moved = body.frame && JSON.stringify(body.frame) !== JSON.stringify(item?.frame);
      if (item && (moved || (typeof body.text === "string" && body.text !== item.text))) {
        [edited, last, canUndo] = [{ id: item.id, text: item.text, frame: item.frame }, null, true];
      }
    } else if (what.what === "remove" && what.target) {
      items.delete(what.target);
      [last, edited, canUndo] = [null, null, false];
    } else if (what.what === "undo") {
      const item = edited ? items.get(edited.id) : undefined;
      if (item && edited) items.set(item.id, { ...item, text: edited.text, ...(edited.frame ? { frame: edited.frame } : {}), pending: true });
      else if (last) items.delete(last);
      [last, edited, canUndo] = [null, null, false];
    }
  }
  order = order.filter((pageId) => pages.has(pageId));
  const list = order.map((pageId, index) => ({ .../** @type {Page} */ (pages.get(pageId)), number: index + 1, items: /** @type {Item[]} */ ([]) }));
  const byId = new Map(list.map((page) => [page.id, page]));
  for (const item of [...items.values()].sort((a, b) => a.seq - b.seq)) byId.get(/** @type {any} */ (item).page)?.items.push(item);
  // A pending insert whose slot was not chosen takes the first free one, as the server does.
  for (const page of list) {
    for (const item of page.items) {
      if (!item.pending || item.frame) continue;
      const taken = new Set(page.items.filter((other) => other !== item && typeof other.slot === "number").map((other) => other.slot));
      const slot = page.slots.findIndex((_, index) => !taken.has(index));
      item.slot = slot >= 0 ? slot : null;
      item.frame = placed(catalog, slot >= 0 ? page.slots[slot] : undefined, /** @type {any} */ (item).aspect);
    }
  }
  delete notebook.pages;
  return { notebook: { ...notebook, id, pageCount: list.length, canUndo: canUndo && notebook.access !== "read" }, pages: list };
}

/**
 * The notebooks this phone has (the owner's and those shared with them), newest opened first.
 * @param {import("./sync.js").Sync} sync
 * @returns {{mine: Notebook[], shared: Notebook[]}}
 */
export function localNotebooks(sync) {
  /** @type {Notebook[]} */
  const all = [];
  for (const [key, value] of sync.records) if (key.startsWith(`${NOTEBOOK}/`)) all.push(value);
  const removed = new Set();
  for (const write of sync.writes) {
    const what = writeOf(write);
    if (what?.what === "create") all.push({ ...write.body, id: write.id, pageCount: 0, canUndo: false, access: "owner", version: 0, pending: true });
    if (what?.what === "rename") {
      const at = all.findIndex((n) => n.id === what.notebook);
      if (at >= 0) all[at] = { ...all[at], ...write.body };
    }
    if (write.method === "DELETE" && what && what.what === "other" && write.path.split("?")[0].endsWith(`/notebooks/${what.notebook}`)) removed.add(what.notebook);
  }
  const shown = all.filter((n) => !removed.has(n.id)).map((n) => ({ ...n, pageCount: Array.isArray(/** @type {any} */ (n).pages) ? /** @type {any} */ (n).pages.length : n.pageCount }));
  shown.sort((a, b) => (b.openedAt ?? "").localeCompare(a.openedAt ?? "") || a.name.localeCompare(b.name));
  return { mine: shown.filter((n) => n.access !== "read"), shared: shown.filter((n) => n.access === "read") };
}

/** The catalog as last read, kept for opening offline. @returns {Catalog | null} */
export function keptCatalog() {
  try {
    return JSON.parse(localStorage.getItem("quire.ar.catalog") ?? "null");
  } catch {
    return null;
  }
}

/** @param {Catalog} catalog */
export function keepCatalog(catalog) {
  try {
    localStorage.setItem("quire.ar.catalog", JSON.stringify(catalog));
  } catch {
    // Storage full: read from the network next time.
  }
}

/**
 * The notebook as the server answered it (`GET /notebooks/{id}`), kept with the feed's records: a
 * notebook shared with this phone's user after its pages were written has them only from here
 * (the feed brings what changes from then on). A copy the feed brought newer stays.
 * @param {import("./sync.js").Sync} sync @param {Content} content
 */
export async function keepFromServer(sync, content) {
  const id = content.notebook.id;
  /** @type {Array<[string, any]>} */
  const puts = [];
  /** @type {string[]} */
  const deletes = [];
  const owner = sync.records.get(`${NOTEBOOK}/${id}`)?.owner;
  const put = (/** @type {string} */ key, /** @type {any} */ value) => {
    const held = sync.records.get(key);
    if (held && held.version >= value.version) return;
    puts.push([key, { ...value, ...(owner ? { owner } : {}) }]);
  };
  put(`${NOTEBOOK}/${id}`, { ...content.notebook, pages: content.pages.map((page) => page.id), kind: NOTEBOOK });
  const present = new Set();
  for (const page of content.pages) {
    present.add(`${PAGE}/${page.id}`);
    put(`${PAGE}/${page.id}`, { id: page.id, notebook: id, template: page.template, background: page.background, kind: PAGE, version: 0 });
    for (const item of page.items) {
      present.add(`${ITEM}/${item.id}`);
      put(`${ITEM}/${item.id}`, { ...item, itemKind: item.kind, kind: ITEM, notebook: id, page: page.id, version: item.version ?? 0 });
    }
  }
  for (const [key, value] of sync.records) {
    if (value?.notebook === id && (key.startsWith(`${PAGE}/`) || key.startsWith(`${ITEM}/`)) && !present.has(key)) deletes.push(key);
  }
  if (!puts.length && !deletes.length) return;
  for (const [key, value] of puts) sync.records.set(key, value);
  for (const key of deletes) sync.records.delete(key);
  await sync.db?.applyRecords(puts, deletes);
  sync.changed();
}

/**
 * The notebooks shared with this user as the server lists them now (`GET /notebooks/shared`): one
 * shared before this phone's feed began is added, one whose link was taken back goes (with its
 * pages and items).
 * @param {import("./sync.js").Sync} sync @param {Array<{notebook: Notebook}>} shared
 */
export async function keepShared(sync, shared) {
  /** @type {Array<[string, any]>} */
  const puts = [];
  /** @type {string[]} */
  const deletes = [];
  const live = new Set(shared.map((s) => s.notebook.id));
  for (const { notebook } of shared) {
    const key = `${NOTEBOOK}/${notebook.id}`;
    if (!sync.records.has(key)) puts.push([key, { ...notebook, kind: NOTEBOOK }]);
  }
  for (const [key, value] of sync.records) {
    const id = key.startsWith(`${NOTEBOOK}/`) ? value.id : value?.notebook;
    const notebook = id ? sync.records.get(`${NOTEBOOK}/${id}`) : null;
    if (notebook?.access === "read" && !live.has(id)) deletes.push(key);
  }
  if (!puts.length && !deletes.length) return;
  for (const [key, value] of puts) sync.records.set(key, value);
  for (const key of deletes) sync.records.delete(key);
  await sync.db?.applyRecords(puts, deletes);
  sync.changed();
}
