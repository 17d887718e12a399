// @ts-check
/**
 * The sync layer's live connection (`/api/v1/sync/live`): a poke means pull; an alert is passed on
 * as the Sync's "alert" event; it reconnects when dropped (backing off, every 5 s while offline),
 * refreshing the session first when the server said it no longer holds. sync.js opens it.
 */
import { backoff } from "./outbox.js";

/** Opens `sync`'s live connection unless it is stopped, signed out, or has one. @param {import("./sync.js").Sync} sync */
export function connectLive(sync) {
  if (sync.stopped || !sync.api.session || (sync.socket && sync.socket.readyState <= WebSocket.OPEN)) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/v1/sync/live`);
  sync.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ type: "auth", token: sync.api.session?.accessToken }));
  socket.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (message.type === "ready") {
      sync.liveAttempts = 0;
      sync.pull();
    } else if (message.type === "poke") {
      sync.pull();
    } else if (message.type === "alert") {
      sync.dispatchEvent(new CustomEvent("alert", { detail: message }));
    }
  };
  socket.onclose = async (event) => {
    if (sync.socket === socket) sync.socket = null;
    if (sync.stopped) return;
    if (event.code === 4403 || event.code === 4401) await sync.api.refresh(true).catch(() => {});
    sync.liveAttempts += 1;
    window.setTimeout(() => sync.connect(), navigator.onLine ? backoff(sync.liveAttempts) : 5000);
  };
}
