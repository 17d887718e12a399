// @ts-check
/**
 * `<map-view>`: a small map of places, for any app's screens (Napkin Notes' map of where notes were
 * written; AR Notebook's pins and iRemember's places can use it too). Leaflet comes from the server
 * (`/vendor/leaflet/`, Debian's libjs-leaflet, loaded the first time a map is shown); the tiles from
 * the app's `web: { map_tiles }` (OpenStreetMap by default), which the page's CSP allows.
 *
 *     const map = document.createElement("map-view");
 *     map.show(features, [{ latitude: 48.85, longitude: 2.29, label: "Groceries", open: () => go("#/notes/n_1") }]);
 *
 * Each marker is a button named by its label (Enter or a tap runs `open`). When Leaflet is not
 * installed, or the phone is offline, the map says so in words instead of showing an empty box.
 */
import { h } from "./ui.js";

/** @typedef {{latitude: number, longitude: number, label: string, open?: () => void}} Place */

const LEAFLET = "/vendor/leaflet/leaflet.esm.js";
/** @type {Promise<any> | null} */
let loading = null;

/** Leaflet's module and its stylesheet, once per page. */
function leaflet() {
  if (!loading) {
    const css = h("link", { rel: "stylesheet", href: "/vendor/leaflet/leaflet.css" });
    document.head.append(css);
    const url = LEAFLET;
    loading = import(url).catch((error) => {
      loading = null;
      css.remove();
      throw error;
    });
  }
  return loading;
}

export class MapView extends HTMLElement {
  connectedCallback() {
    if (this.box) return;
    this.status = h("p", { class: "hint map-status", role: "status" });
    this.box = h("div", { class: "map-box", role: "region", "aria-label": this.getAttribute("label") ?? "Map" });
    // CSSOM, which the CSP allows: a map needs a height of its own.
    Object.assign(this.box.style, { height: this.getAttribute("height") ?? "60vh", minHeight: "240px", borderRadius: "12px", overflow: "hidden" });
    this.append(this.status, this.box);
  }

  /** @param {string} text */
  say(text) {
    if (this.status) this.status.textContent = text;
  }

  /**
   * Shows the places: the map fitted to them (or the whole world when there are none).
   * @param {Set<string>} features  the app's features (`map`, `map-tiles:URL`, `map-attribution:TEXT`)
   * @param {Place[]} places
   */
  async show(features, places) {
    this.connectedCallback();
    const tiles = [...features].find((f) => f.startsWith("map-tiles:"))?.slice("map-tiles:".length);
    const attribution = [...features].find((f) => f.startsWith("map-attribution:"))?.slice("map-attribution:".length) ?? "";
    if (!features.has("map") || !tiles) {
      this.say("The map needs Leaflet on the server: its operator installs Debian's libjs-leaflet (tools/setup does) and restarts it.");
      return;
    }
    /** @type {any} */
    let L;
    try {
      L = await leaflet();
    } catch {
      this.say(navigator.onLine ? "The map could not be loaded from the server; try again." : "The map needs the internet; try again when this phone is online.");
      return;
    }
    const box = /** @type {HTMLElement} */ (this.box);
    if (!this.map) {
      this.map = L.map(box, { zoomControl: true, attributionControl: true });
      const layer = L.tileLayer(tiles, { maxZoom: 19, attribution: attribution.replace(/[<>&]/g, "") }).addTo(this.map);
      // Tiles missing (offline, or the tile server down): said kindly; the markers still work.
      layer.on("tileerror", () => this.say(navigator.onLine ? "Part of the map's background could not be loaded; the places are still marked."
        : "This phone is offline, so the map's background is missing; the places are still marked."));
      this.layer = L.layerGroup().addTo(this.map);
    }
    this.layer.clearLayers();
    for (const place of places) {
      const marker = L.marker([place.latitude, place.longitude], { title: place.label, alt: place.label, keyboard: true, riseOnHover: true });
      if (place.open) marker.on("click", place.open);
      marker.addTo(this.layer);
      // A button named by its label (Leaflet gives it the alt text and a tab stop).
      marker.getElement()?.setAttribute("role", "button");
      marker.getElement()?.setAttribute("aria-label", place.label);
    }
    if (places.length === 1) this.map.setView([places[0].latitude, places[0].longitude], 13);
    else if (places.length) this.map.fitBounds(places.map((p) => [p.latitude, p.longitude]), { padding: [32, 32], maxZoom: 15 });
    else this.map.setView([20, 0], 1);
    this.map.invalidateSize();
    this.say(places.length ? `${places.length} place${places.length === 1 ? "" : "s"} on the map. Tap a marker to open it.` : this.getAttribute("empty") ?? "Nothing on the map yet.");
  }
}
customElements.define("map-view", MapView);
