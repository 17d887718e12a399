// AR Notebook: the notebook as this phone has it, with the writes still waiting on top
// (notebook-model.js). Run by `node --test Tests/WebClient`.
import assert from "node:assert/strict";
import test from "node:test";
import { ITEM, NOTEBOOK, PAGE, bothTexts, localContent, placed } from "../../Plugins/Web/Client/notebook-model.js";

const catalog = { pageWidth: 600, pageHeight: 800, templates: [{ id: "blank", slots: [] }] };
const at = { x: 100, y: 200, width: 300, height: 100 };

/** A notebook of one page holding one picture, and the writes waiting: a fake of sync's state. */
function phone(writes) {
  const records = new Map([
    [`${NOTEBOOK}/nb1`, { id: "nb1", name: "Trip", pages: ["pg1"], canUndo: false, access: "owner", version: 3 }],
    [`${PAGE}/pg1`, { id: "pg1", notebook: "nb1", template: "blank", background: "white" }],
    [`${ITEM}/it1`, { id: "it1", notebook: "nb1", page: "pg1", itemKind: "image", frame: at, seq: 1, version: 1 }],
  ]);
  return { records, writes };
}

const move = { method: "PATCH", path: "/api/v1/notebooks/notebooks/nb1/items/it1", kind: ITEM, id: "it1",
  body: { frame: { x: 0, y: 0, width: 300, height: 100 } } };
const undo = { method: "POST", path: "/api/v1/notebooks/notebooks/nb1/undo", kind: NOTEBOOK, id: "nb1" };

test("a move waiting offline can be undone (it is the last thing done), and undone it is back where it was", () => {
  const moved = localContent(/** @type {any} */ (phone([move])), "nb1", catalog);
  assert.equal(moved?.notebook.canUndo, true);
  assert.deepEqual(moved?.pages[0].items[0].frame, move.body.frame);
  const undone = localContent(/** @type {any} */ (phone([move, undo])), "nb1", catalog);
  assert.deepEqual(undone?.pages[0].items[0].frame, at, "the picture back where it was, not removed");
  assert.equal(undone?.notebook.canUndo, false, "once");
});

test("a PATCH that leaves the frame as it was is not a thing to undo", () => {
  const same = localContent(/** @type {any} */ (phone([{ ...move, body: { frame: at } }])), "nb1", catalog);
  assert.equal(same?.notebook.canUndo, false);
});

test("Bring back theirs opens with theirs first, then this phone's, once when they are the same", () => {
  assert.equal(bothTexts("Porto. B", "Porto. A"), "Porto. B\nPorto. A");
  assert.equal(bothTexts("Porto", "Porto"), "Porto");
  assert.equal(bothTexts("Porto", ""), "Porto");
});

test("a text without a slot is placed off the items on the page, as the server places it (walk9: drawn over the first)", () => {
  const first = placed(catalog, undefined);
  assert.deepEqual(first, { x: 60, y: 340, width: 480, height: 120 }, "centred on an empty page");
  // NotebookLayout.apart: the nearest place below first, 8 apart, in steps of 10 from the centre.
  const second = placed(catalog, undefined, undefined, [first]);
  assert.deepEqual(second, { x: 60, y: 470, width: 480, height: 120 });
  const third = placed(catalog, undefined, undefined, [first, second]);
  assert.ok(third.y + third.height + 8 <= first.y, `above the first: ${JSON.stringify(third)}`);
  const slot = { x: 0, y: 0, width: 600, height: 400 };
  assert.deepEqual(placed(catalog, slot, undefined, [first]), { x: 0, y: 0, width: 600, height: 400 }, "a slot's item fills its slot, whatever is near");
});
