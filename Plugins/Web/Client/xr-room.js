// @ts-check
/**
 * The notebook on a real table, where the browser offers WebXR `immersive-ar` with hit-test: the
 * camera's view fills the screen, a ring shows where the phone's aim meets a detected horizontal
 * surface, and a tap puts the notebook there, lying open at the page that was showing, its top
 * edge away from you; walk round it to see it from every side. WebGL draws it (two textured
 * quads: the cover, a little larger, and the page on it). A DOM overlay, where granted, says what
 * to do and has a Done button; without one, the system's back gesture ends the session.
 *
 * `placement` and `quad` are pure (node --test); `RoomView` needs a browser with WebXR.
 */

/** @typedef {{x: number, y: number, z: number}} Point */
/** The notebook's size on the table, in metres: an A4-ish page. */
export const PAGE = { width: 0.21, depth: 0.28 };

/** Whether this browser can place things in the room. Never throws. */
export async function arSupported() {
  try {
    const xr = /** @type {any} */ (navigator).xr;
    return Boolean(xr && (await xr.isSessionSupported("immersive-ar")));
  } catch {
    return false;
  }
}

/**
 * Where the notebook goes for a hit: on the surface's point, turned about the vertical so that its
 * top edge is away from the viewer. Null when the surface is not horizontal enough to lay a
 * notebook on (its normal more than ~45° from up) — a wall, say.
 * @param {ArrayLike<number>} hit  the hit pose's matrix (its y axis is the surface's normal)
 * @param {Point} viewer  where the phone is, in the same space
 * @returns {Float32Array | null}  the notebook's model matrix
 */
export function placement(hit, viewer) {
  const normalY = hit[5] / Math.hypot(hit[4], hit[5], hit[6]);
  if (!(normalY > 0.7)) return null;
  const at = { x: hit[12], y: hit[13], z: hit[14] };
  // Facing: the notebook's +z (its bottom edge) points at the viewer, on the horizontal plane.
  const dx = viewer.x - at.x;
  const dz = viewer.z - at.z;
  const yaw = Math.hypot(dx, dz) < 1e-6 ? 0 : Math.atan2(dx, dz);
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return new Float32Array([c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, at.x, at.y, at.z, 1]);
}

/** A flat rectangle on the model's y = `lift` plane, centred, with texture coordinates (top-left 0,0 at −z). */
export function quad(width, depth, lift) {
  const x = width / 2;
  const z = depth / 2;
  // x, y, z, u, v — two triangles.
  return new Float32Array([
    -x, lift, -z, 0, 0, x, lift, -z, 1, 0, x, lift, z, 1, 1,
    -x, lift, -z, 0, 0, x, lift, z, 1, 1, -x, lift, z, 0, 1,
  ]);
}

const VERTEX = `
attribute vec3 position;
attribute vec2 uv;
uniform mat4 projection;
uniform mat4 view;
uniform mat4 model;
varying vec2 texel;
void main() {
  texel = uv;
  gl_Position = projection * view * model * vec4(position, 1.0);
}`;

const FRAGMENT = `
precision mediump float;
uniform sampler2D picture;
varying vec2 texel;
void main() {
  gl_FragColor = texture2D(picture, texel);
}`;

/** A ring, the aim's marker on a surface. */
function ringPicture() {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 128;
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  g.strokeStyle = "rgba(255,255,255,0.95)";
  g.lineWidth = 10;
  g.beginPath();
  g.arc(64, 64, 52, 0, Math.PI * 2);
  g.stroke();
  return canvas;
}

/**
 * One session in the room. Dispatches `placed` when the notebook is put down and `end` when the
 * session is over (Done, the system's back, or the browser ending it).
 */
export class RoomView extends EventTarget {
  /**
   * @param {{page: HTMLCanvasElement, cover: HTMLCanvasElement, overlay: HTMLElement, say: (text: string) => void}} options
   *   `page` and `cover` are what the quads show; `overlay` becomes the DOM overlay; `say` tells the person what to do.
   */
  constructor(options) {
    super();
    this.options = options;
    /** @type {Float32Array | null} where the aim meets a surface now */
    this.aim = null;
    /** @type {Float32Array | null} where the notebook was put */
    this.placed = null;
    /** @type {any} */
    this.session = null;
    this.said = "";
  }

  async start() {
    const xr = /** @type {any} */ (navigator).xr;
    const session = await xr.requestSession("immersive-ar", { requiredFeatures: ["hit-test"], optionalFeatures: ["dom-overlay"],
      domOverlay: { root: this.options.overlay } });
    this.session = session;
    try {
      const canvas = document.createElement("canvas");
      const gl = /** @type {WebGLRenderingContext} */ (canvas.getContext("webgl", { xrCompatible: true, alpha: true }));
      if (!gl) throw new Error("WebGL is not available");
      this.gl = gl;
      const XRWebGLLayer = /** @type {any} */ (window).XRWebGLLayer;
      this.layer = new XRWebGLLayer(session, gl);
      session.updateRenderState({ baseLayer: this.layer });
      this.local = await session.requestReferenceSpace("local");
      const viewer = await session.requestReferenceSpace("viewer");
      this.source = await session.requestHitTestSource({ space: viewer });
      this.setUpDrawing(gl);
    } catch (error) {
      await session.end().catch(() => {});
      throw error;
    }
    session.addEventListener("select", () => this.put());
    session.addEventListener("end", () => {
      this.source?.cancel?.();
      this.session = null;
      this.dispatchEvent(new Event("end"));
    });
    this.say("Point your phone at a table or the floor.");
    session.requestAnimationFrame((/** @type {number} */ time, /** @type {any} */ frame) => this.frame(time, frame));
  }

  /** @param {string} text */
  say(text) {
    if (text === this.said) return;
    this.said = text;
    this.options.say(text);
  }

  /** A tap: the notebook goes where the aim is (again, if it was already put down). */
  put() {
    if (!this.aim) return;
    this.placed = this.aim;
    this.say("Here it is. Walk round it to see every side; tap elsewhere to move it.");
    this.dispatchEvent(new Event("placed"));
  }

  end() {
    return this.session?.end().catch(() => {});
  }

  /** Shows another page (turned, or written on) on the notebook in the room. @param {HTMLCanvasElement} picture */
  showPage(picture) {
    this.options.page = picture;
    const gl = this.gl;
    const texture = this.shapes?.page.texture;
    if (!gl || !texture) return;
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, picture);
  }

  /** @param {WebGLRenderingContext} gl */
  setUpDrawing(gl) {
    const shader = (/** @type {number} */ type, /** @type {string} */ text) => {
      const s = /** @type {WebGLShader} */ (gl.createShader(type));
      gl.shaderSource(s, text);
      gl.compileShader(s);
      return s;
    };
    const program = /** @type {WebGLProgram} */ (gl.createProgram());
    gl.attachShader(program, shader(gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, shader(gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error("the notebook's shaders did not link");
    this.program = program;
    /** @param {Float32Array} vertices @param {TexImageSource} picture */
    const shape = (vertices, picture) => {
      const buffer = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, vertices, gl.STATIC_DRAW);
      const texture = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, picture);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      return { buffer, texture, count: vertices.length / 5 };
    };
    this.shapes = {
      cover: shape(quad(PAGE.width + 0.012, PAGE.depth + 0.012, 0.004), this.options.cover),
      page: shape(quad(PAGE.width, PAGE.depth, 0.008), this.options.page),
      ring: shape(quad(0.12, 0.12, 0.001), ringPicture()),
    };
    this.where = {
      position: gl.getAttribLocation(program, "position"),
      uv: gl.getAttribLocation(program, "uv"),
      projection: gl.getUniformLocation(program, "projection"),
      view: gl.getUniformLocation(program, "view"),
      model: gl.getUniformLocation(program, "model"),
    };
  }

  /** One frame: find the aim, then draw the notebook (or the ring) for each of the views. @param {number} _time @param {any} frame */
  frame(_time, frame) {
    const session = frame.session ?? this.session;
    if (!this.session) return;
    session.requestAnimationFrame((/** @type {number} */ t, /** @type {any} */ f) => this.frame(t, f));
    const pose = frame.getViewerPose(this.local);
    if (!pose) return;
    const hit = frame.getHitTestResults(this.source)[0];
    const from = pose.transform.position;
    this.aim = hit ? placement(hit.getPose(this.local).transform.matrix, from) : null;
    if (!this.placed) {
      this.say(this.aim ? "Tap to put the notebook here." : hit ? "That is not flat: point at a table or the floor." : "Point your phone at a table or the floor.");
    }
    const gl = /** @type {WebGLRenderingContext} */ (this.gl);
    const layer = this.layer;
    gl.bindFramebuffer(gl.FRAMEBUFFER, layer.framebuffer);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.useProgram(/** @type {WebGLProgram} */ (this.program));
    for (const view of pose.views) {
      const port = layer.getViewport(view);
      gl.viewport(port.x, port.y, port.width, port.height);
      gl.uniformMatrix4fv(this.where?.projection ?? null, false, view.projectionMatrix);
      gl.uniformMatrix4fv(this.where?.view ?? null, false, view.transform.inverse.matrix);
      if (this.placed) {
        this.draw("cover", this.placed);
        this.draw("page", this.placed);
      }
      if (this.aim && (!this.placed || this.aim !== this.placed)) this.draw("ring", this.aim);
    }
  }

  /** @param {"cover" | "page" | "ring"} name @param {Float32Array} model */
  draw(name, model) {
    const gl = /** @type {WebGLRenderingContext} */ (this.gl);
    const shape = this.shapes?.[name];
    const where = this.where;
    if (!shape || !where) return;
    gl.bindBuffer(gl.ARRAY_BUFFER, shape.buffer);
    gl.enableVertexAttribArray(where.position);
    gl.vertexAttribPointer(where.position, 3, gl.FLOAT, false, 20, 0);
    gl.enableVertexAttribArray(where.uv);
    gl.vertexAttribPointer(where.uv, 2, gl.FLOAT, false, 20, 12);
    gl.bindTexture(gl.TEXTURE_2D, shape.texture);
    gl.uniformMatrix4fv(where.model, false, model);
    gl.drawArrays(gl.TRIANGLES, 0, shape.count);
  }
}
