// @ts-check
// Boot: the service worker for offline use, then the app element.
import "./app.js";
import "./kept-vocab-new.js";
import "./focus-in-view.js";

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // No offline shell (a private window, an old browser): the app still works online.
  });
}
