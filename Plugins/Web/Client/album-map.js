// @ts-check
/**
 * iRemember's map (album: { map: true }): the photos that have a place, a marker each place on a
 * map (`map-view.js`: Leaflet from the server, tiles from web's map_tiles), and the same places as
 * big links under it, so the map is never the only way in. A tap on a marker or a link opens the
 * place: its photos, newest first, each opening the photo. Worked out from the album kept on the
 * phone (`album-places.js`), so it works offline; where the map's background cannot be loaded the
 * screen says so in words and the places still work.
 */
import { AlbumElement, back, grid } from "./album-base.js";
import { mapPlaces } from "./album-places.js";
import { h } from "./ui.js";
import "./map-view.js";

/** @typedef {import("./album-base.js").Context} Context */

/** Whether this app shows the map (album's `map` and web's Leaflet). @param {Context} context */
export function hasMap(context) {
  return Boolean(/** @type {any} */ (context).features?.has("photo-map"));
}

/** `#/map/KEY`: a place's photos. @param {string} key */
export function placeHash(key) {
  return `#/map/${encodeURIComponent(key)}`;
}

/** `#/map`: the map of the photos' places. */
export class PhotoMapScreen extends AlbumElement {
  /** Drawn again only when the places changed (a map redrawn on every sync would jump). */
  changed() {
    if (this.shownPlaces !== this.placesKey()) this.render();
  }

  placesKey() {
    return mapPlaces(this.photos()).map((p) => `${p.key}:${p.photos.length}`).join("|");
  }

  render() {
    this.shownPlaces = this.placesKey();
    const places = mapPlaces(this.photos());
    const features = /** @type {Set<string>} */ (/** @type {any} */ (this.ctx).features ?? new Set());
    /** @type {any} */
    const map = this.map ?? h("map-view", { label: "Map of your photos", height: "52vh",
      empty: "No photo has a place yet: photos taken with the phone's location on are put on the map." });
    this.map = map;
    const link = (/** @type {import("./album-places.js").MapPlace} */ place) => h("li", {}, h("a", { href: placeHash(place.key), class: "big-link" },
      h("span", {}, place.label), h("span", { class: "count" }, `${place.photos.length} photo${place.photos.length === 1 ? "" : "s"}`)));
    this.replaceChildren(h("main", { class: "screen photo-map" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Map")),
      map,
      h("h2", { id: "map-places-heading" }, "Places"),
      places.length ? h("ul", { class: "big-list", "aria-labelledby": "map-places-heading" }, ...places.map(link))
        : h("p", { class: "empty" }, "No places yet: photos taken with the location on go here.")));
    map.show(features, places.map((place) => ({ latitude: place.latitude, longitude: place.longitude,
      label: `${place.label}: ${place.photos.length} photo${place.photos.length === 1 ? "" : "s"}`,
      open: () => this.ctx.go(placeHash(place.key)) })));
  }
}
customElements.define("album-photo-map", PhotoMapScreen);

/** `#/map/KEY`: the photos taken at one place, each opening the photo. */
export class MapPlaceScreen extends AlbumElement {
  render() {
    this.releaseCells();
    const place = mapPlaces(this.photos()).find((p) => p.key === this.id_);
    const top = h("div", { class: "toolbar" }, back("#/map", "Map"), h("h1", {}, place ? place.label : "Place"));
    if (!place) {
      this.replaceChildren(h("main", { class: "screen" }, top, h("p", { class: "empty" }, "No photos here any more.")));
      return;
    }
    const count = place.photos.length;
    this.replaceChildren(h("main", { class: "screen" }, top,
      h("p", { class: "lead" }, `${count} photo${count === 1 ? "" : "s"} taken here. Tap one to open it.`),
      grid(this.ctx, place.photos, `Photos taken in ${place.label}`)));
  }
}
customElements.define("album-map-place", MapPlaceScreen);
