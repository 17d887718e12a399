// @ts-check
/**
 * iRemember's map, worked out on the device from the synced photos (pure, unit-tested in
 * Tests/WebClient): the photos that have a location, gathered into places (the place folder the
 * server named from its gazetteer, else the spot to about a kilometre), each with where to put its
 * marker and its photos, newest first.
 */

/**
 * @typedef {object} MapPlace
 * @property {string} key       the place folder's key, or `at:LAT,LON` (two decimals) for a photo no town was found for
 * @property {string} label     what it is called ("Paris", or "Near 48.86, 2.29")
 * @property {number} latitude  where the marker goes: the middle of its photos
 * @property {number} longitude
 * @property {any[]} photos     newest first
 */

/** @param {any} photo @returns {{latitude: number, longitude: number} | null} */
function located(photo) {
  const where = photo?.location;
  if (!where) return null;
  const { latitude, longitude } = where;
  if (typeof latitude !== "number" || typeof longitude !== "number" || !Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { latitude, longitude };
}

/** @param {any} photo */
export function placeKey(photo) {
  const where = located(photo);
  if (!where) return null;
  return photo.place?.key || `at:${where.latitude.toFixed(2)},${where.longitude.toFixed(2)}`;
}

/**
 * The places on the map, most photos first (then by name).
 * @param {readonly any[]} photos @returns {MapPlace[]}
 */
export function mapPlaces(photos) {
  /** @type {Map<string, MapPlace>} */
  const found = new Map();
  for (const photo of photos) {
    const where = located(photo);
    const key = placeKey(photo);
    if (!where || !key) continue;
    let place = found.get(key);
    if (!place) {
      const label = photo.place?.label || `Near ${where.latitude.toFixed(2)}, ${where.longitude.toFixed(2)}`;
      place = { key, label, latitude: 0, longitude: 0, photos: [] };
      found.set(key, place);
    }
    place.photos.push(photo);
  }
  for (const place of found.values()) {
    const points = place.photos.map((photo) => /** @type {{latitude: number, longitude: number}} */ (located(photo)));
    place.latitude = points.reduce((sum, p) => sum + p.latitude, 0) / points.length;
    place.longitude = points.reduce((sum, p) => sum + p.longitude, 0) / points.length;
    place.photos.sort((a, b) => String(b.takenAt ?? "").localeCompare(String(a.takenAt ?? "")) || String(b.id).localeCompare(String(a.id)));
  }
  return [...found.values()].sort((a, b) => b.photos.length - a.photos.length || a.label.localeCompare(b.label));
}
