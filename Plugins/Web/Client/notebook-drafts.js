// @ts-check
/**
 * Text being typed for a notebook's page and not yet saved (“Write on the page”, “Change the
 * text”), kept on the phone as it is typed: a reload, a crash or the browser dropping the tab does
 * not lose it. It is given back when the notebook opens again, until it is added (or waits in the
 * outbox) or the person taps Cancel. Kept in localStorage per account, notebook and page (and item,
 * for a change of an item's text); signing out forgets it with the rest of the account's keys.
 */

// Under "quire.draft.": signing out forgets every key there (app.js).
const PREFIX = "quire.draft.ar.";

/** @typedef {{notebook: string, page: string, item?: string, slot?: number | null, text: string, why?: string}} Draft  `why`: said in the dialog it opens again (the server refused it: kept-refused-kinds.js) */

/** @param {string} account */
function prefixOf(account) {
  return `${PREFIX}${account}.`;
}

/** @param {string} account @param {{notebook: string, page: string, item?: string}} where */
function keyOf(account, where) {
  return `${prefixOf(account)}${where.notebook}.${where.page}${where.item ? `.${where.item}` : ""}`;
}

/**
 * Keeps what is typed into the dialog's field `id` (just opened) as a draft for `where`, from
 * each keystroke on.
 * @param {string} account @param {Omit<Draft, "text">} where @param {string} id
 */
export function keepDraft(account, where, id) {
  const field = /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (document.getElementById(id));
  if (!field) return;
  const store = () => {
    try {
      if (field.value.trim()) localStorage.setItem(keyOf(account, where), JSON.stringify({ ...where, text: field.value }));
      else localStorage.removeItem(keyOf(account, where));
    } catch {
      // Storage full or refused: the text is still in the dialog.
    }
  };
  field.addEventListener("input", store);
  store();
}

/** A draft put back for `where` (words the server refused, to change and add again). @param {string} account @param {Draft} draft */
export function putDraft(account, draft) {
  localStorage.setItem(keyOf(account, draft), JSON.stringify(draft));
}

/** The draft is saved (added, or waiting in the outbox) or discarded. @param {string} account @param {{notebook: string, page: string, item?: string}} where */
export function dropDraft(account, where) {
  localStorage.removeItem(keyOf(account, where));
}

/**
 * The drafts kept for a notebook (any of its ids: the local one it had before the server named it,
 * and the server's), oldest key first.
 * @param {string} account @param {string[]} notebookIds @returns {Draft[]}
 */
export function draftsOf(account, notebookIds) {
  /** @type {Draft[]} */
  const found = [];
  for (let n = 0; n < localStorage.length; n++) {
    const key = localStorage.key(n);
    if (!key?.startsWith(prefixOf(account))) continue;
    try {
      const draft = JSON.parse(localStorage.getItem(key) ?? "null");
      if (draft && notebookIds.includes(draft.notebook) && typeof draft.text === "string") found.push(draft);
    } catch {
      localStorage.removeItem(key);
    }
  }
  return found;
}
