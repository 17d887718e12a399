// @ts-check
/**
 * iRemember, as its tutorials describe: the main menu (Choose From Phone, Take With Camera, Import
 * from Internet, Recent, Album, Share); mark-up straight after a photo (draw and write on it,
 * notes, tags as big chips with the most used a tap away, the time it was taken); the album by time
 * and by recent days; search by tags (+ adds, − takes away) and by time; month and place folders; a
 * full-screen slideshow; sharing a photo or a search; moving the account to a new phone.
 *
 * Built for people with memory loss: one task per screen, large text and targets, every control
 * labelled, nothing that expires or must be remembered. Everything but sharing and importing works
 * offline: the album is the synced copy on the phone (`album.js` answers its questions), and a photo
 * taken offline is shown at once and uploaded when the network returns.
 *
 * This module routes to the screens: album-menu.js (the main menu, adding a photo, importing, a new
 * phone, settings), album-photo.js (mark-up, the photo), album-photo-edit.js (Edit picture),
 * album-browse.js (the album, searches, Recent, folders, the slideshow), album-share.js (Share, the
 * links shared);
 * album-base.js holds what they share, picture-cache.js the picture cache (one for the three apps).
 */
import * as Album from "./album.js";
import { HomeScreen, ImportScreen, MoveScreen, SettingsScreen } from "./album-menu.js";
import { MarkupScreen, PhotoScreen } from "./album-photo.js";
import { PhotoEditScreen } from "./album-photo-edit.js";
import { AlbumScreen, FoldersScreen, RecentScreen, SlideshowScreen, TagSearchScreen, TimeSearchScreen } from "./album-browse.js";
import { SharedLinksScreen, ShareScreen } from "./album-share.js";
import { MapPlaceScreen, PhotoMapScreen } from "./album-map.js";
import { caregiverScreen } from "./album-helping.js";
import { PeopleScreen, PersonScreen } from "./person-page.js";

/** @typedef {import("./album-base.js").Context} Context */

/**
 * The screen for a route: `parts` is the path after `#/`, `query` what follows `?`.
 * @param {Context} context @param {string[]} parts @param {string} query @returns {HTMLElement}
 */
export function albumScreen(context, parts, query) {
  const [first, id, sub] = parts;
  const caregiving = caregiverScreen(context, parts);  // family, help, helping (album-helping.js)
  if (caregiving) return caregiving;
  /** @type {import("./album-base.js").AlbumElement} */
  let screen;
  if (first === "photo" && id && sub === "markup") screen = new MarkupScreen();
  else if (first === "photo" && id && sub === "edit") screen = new PhotoEditScreen();
  else if (first === "photo" && id) screen = new PhotoScreen();
  else if (first === "album" && id === "tags") screen = new TagSearchScreen();
  else if (first === "album" && id === "time") screen = new TimeSearchScreen();
  else if (first === "album") screen = new AlbumScreen();
  else if (first === "people") screen = new PeopleScreen();
  else if (first === "person" && id) screen = new PersonScreen();
  else if (first === "recent") screen = new RecentScreen();
  else if (first === "folders") screen = new FoldersScreen();
  else if (first === "map" && id) screen = new MapPlaceScreen();
  else if (first === "map") screen = new PhotoMapScreen();
  else if (first === "slideshow") screen = new SlideshowScreen();
  else if (first === "import") screen = new ImportScreen();
  else if (first === "share" && id === "links") screen = new SharedLinksScreen();
  else if (first === "share") screen = new ShareScreen();
  else if (first === "move") screen = new MoveScreen();
  else if (first === "settings") screen = new SettingsScreen();
  else screen = new HomeScreen();
  screen.attach(context, id ?? "", Album.parseSearch(query));
  return screen;
}
