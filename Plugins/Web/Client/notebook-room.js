// @ts-check
/**
 * The notebook in the room: over the camera's image, or, where the browser offers WebXR
 * `immersive-ar`, laid on a detected table or floor (`xr-room.js`); a camera frame judged for light
 * first (device-monitor's verdict said under the notebook).
 */
import { coverPicture as coverOf, pagePicture } from "./notebook-pictures.js";
import { announce, h } from "./ui.js";
import { arSupported, RoomView } from "./xr-room.js";

const DM = "/api/v1/device-monitor";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

/**
 * The notebook in the room. Where the browser offers WebXR `immersive-ar`, it is placed on a
 * detected table or floor (`xr-room.js`); elsewhere it shows over the camera's image. Either way
 * a camera frame is judged for light first: too dark or too warm warns.
 * @param {BookScreen} screen
 */
export async function inRoom(screen) {
  const stage = /** @type {HTMLElement} */ (screen.stage);
  if (stage.classList.contains("over-camera")) {
    // Back to the notebook on the screen: what was said of the camera's light goes with it.
    screen.lightSaid?.remove();
    screen.lightSaid = undefined;
    return leaveRoom(screen);
  }
  if (screen.room) return;
  if (await arSupported()) return placeInRoom(screen);
  const video = await openCamera(screen);
  if (!video) return;
  screen.camera = video;
  screen.stage?.prepend(video);
  screen.stage?.classList.add("over-camera");
  await judgeLight(screen, video);
}

/** The back camera, playing, or null (said why). @returns {Promise<HTMLVideoElement | null>} @param {BookScreen} screen */
export async function openCamera(screen) {
  if (!navigator.mediaDevices?.getUserMedia) {
    screen.say("This browser cannot show the camera; the notebook stays in 3D on the screen.");
    return null;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  } catch {
    screen.say("The camera is needed to show the notebook in your room; allow it, then try again.");
    return null;
  }
  const video = /** @type {HTMLVideoElement} */ (h("video", { class: "camera", autoplay: true, muted: true, playsinline: true, "aria-hidden": "true" }));
  video.srcObject = stream;
  screen.stream = stream;
  await video.play().catch(() => {});
  await new Promise((resolve) => (video.readyState >= 2 ? resolve(null) : video.addEventListener("loadeddata", resolve, { once: true })));
  return video;
}

/** WebXR: the light judged from one camera frame, then the room session, with its hint and Done over it. @param {BookScreen} screen */
export async function placeInRoom(screen) {
  const video = await openCamera(screen);
  if (video) {
    await judgeLight(screen, video);
    leaveRoom(screen); // the session needs the camera to itself
  }
  const hint = h("p", { class: "xr-hint", role: "status" });
  const done = h("button", { type: "button", onclick: () => room.end() }, "Done");
  const overlay = h("div", { class: "xr-overlay" }, hint, done);
  document.body.append(overlay);
  const room = new RoomView({ page: picture(screen), cover: coverPicture(screen), overlay,
    say: (text) => { hint.textContent = text; } });
  room.addEventListener("end", () => {
    overlay.remove();
    screen.room = undefined;
    announce("Back to the notebook on the screen.");
  });
  try {
    await room.start();
    screen.room = room;
  } catch {
    overlay.remove();
    screen.say("The room view could not start on this phone; the notebook stays in 3D on the screen.");
  }
}

/** What the notebook shows in the room: the open page (its colour, words and pictures), or the cover. @param {BookScreen} screen */
export function picture(screen) {
  const page = screen.index > 0 ? screen.content?.pages[screen.index - 1] ?? null : null;
  return pagePicture(screen.catalog, page, /** @type {Notebook} */ (screen.content?.notebook), screen);
}

/** @param {BookScreen} screen */
export function coverPicture(screen) {
  return coverOf(screen.catalog, /** @type {Notebook} */ (screen.content?.notebook));
}

/** @param {BookScreen} screen */
export function leaveRoom(screen) {
  screen.stream?.getTracks().forEach((track) => track.stop());
  screen.stream = undefined;
  screen.camera = undefined;
  screen.stage?.querySelector("video.camera")?.remove();
  screen.stage?.classList.remove("over-camera");
}

/** @param {HTMLVideoElement} video @param {BookScreen} screen */
export async function judgeLight(screen, video) {
  const canvas = document.createElement("canvas");
  canvas.width = 160;
  canvas.height = Math.round((160 * (video.videoHeight || 120)) / (video.videoWidth || 160));
  /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d")).drawImage(video, 0, 0, canvas.width, canvas.height);
  const frame = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
  if (!(frame instanceof Blob)) return;
  try {
    const verdict = (await screen.ctx.api.request("POST", `${DM}/lighting`, { body: frame, contentType: "image/jpeg" })).body;
    const said = h("p", { class: verdict.warnings.length ? "warning light" : "hint light", role: "status" }, verdict.message);
    screen.querySelector(".light")?.remove();
    screen.lightSaid = said;
    screen.stage?.after(said);
  } catch (error) {
    screen.refused(error);
  }
}
