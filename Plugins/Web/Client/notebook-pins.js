// @ts-check
/** Pins (FR3.2.17, UC-13): the owner pins a notebook where they stand. */
import { N } from "./notebook-model.js";
import { announce, whereAmI } from "./ui.js";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */

/** @param {BookScreen} screen */
export async function pin(screen) {
  const here = await whereAmI(60_000);
  if (!here) {
    screen.say("Your location is needed to pin the notebook here; allow it, then try again.");
    return;
  }
  try {
    await screen.ctx.api.request("PUT", `${N}/notebooks/${screen.content?.notebook.id}/pin`,
      { body: { latitude: here.latitude, longitude: here.longitude, allowEdits: false } });
    await screen.ctx.sync.pull();
    screen.reload();
    announce("Pinned where you stand.");
  } catch (error) {
    screen.refused(error);
  }
}
