// @ts-check
/**
 * The one module that speaks HTTP to Quire. Every refusal becomes an `ApiError` carrying the
 * sentence from the server's problem document, which screens show as it is.
 */

/** @typedef {{accessToken: string, refreshToken: string, expiresAt: number, accountId: string, username?: string, deviceSecret?: string}} Session */

export class ApiError extends Error {
  /**
   * @param {string} message   the problem's `detail`: a sentence a person can act on
   * @param {number | null} status  null when the server could not be reached
   * @param {string} [code]
   * @param {any} [problem]
   */
  constructor(message, status, code, problem) {
    super(message);
    this.status = status;
    this.code = code;
    this.problem = problem;
  }

  get offline() {
    return this.status === null;
  }
}

const SESSION_KEY = "quire.session";

export class Api {
  constructor() {
    /** @type {Session | null} */
    this.session = null;
    try {
      this.session = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
    } catch {
      this.session = null;
    }
    /** @type {Promise<void> | null} */
    this.refreshing = null;
  }

  /** @param {Session | null} session */
  keep(session) {
    const before = this.session;
    this.session = session;
    if (session) localStorage.setItem(SESSION_KEY, JSON.stringify(session));
    else localStorage.removeItem(SESSION_KEY);
    // A new access token for the same account (a refresh: every 15 minutes, or after a 401) is not
    // a new sign-in: said to nobody, so the screen is not drawn again under the user's finger.
    if (before && session && before.accountId === session.accountId && before.username === session.username
      && Boolean(before.deviceSecret) === Boolean(session.deviceSecret)) return;
    window.dispatchEvent(new CustomEvent("quire:session", { detail: session }));
  }

  /**
   * One request. JSON in and out; a Blob body is sent as it is.
   * @param {string} method
   * @param {string} path
   * @param {{body?: any, contentType?: string, headers?: Record<string, string>, auth?: boolean}} [options]
   * @returns {Promise<{status: number, body: any, headers: Headers}>}
   */
  async request(method, path, options = {}) {
    const { body, contentType, headers = {}, auth = true } = options;
    const send = async () => {
      /** @type {Record<string, string>} */
      const all = { ...headers };
      if (auth && this.session) all.Authorization = `Bearer ${this.session.accessToken}`;
      let payload;
      if (body instanceof Blob) {
        payload = body;
        all["Content-Type"] = contentType ?? (body.type || "application/octet-stream");
      } else if (body !== undefined) {
        payload = JSON.stringify(body);
        all["Content-Type"] = "application/json";
      }
      try {
        return await fetch(path, { method, headers: all, body: payload });
      } catch {
        throw new ApiError("You are offline: this needs the network and was not sent. Try again once this phone is online.", null, "offline");
      }
    };
    if (auth && this.session && this.session.expiresAt - Date.now() < 30_000) await this.refresh();
    let response = await send();
    if (response.status === 401 && auth && this.session) {
      await this.refresh(true);
      response = await send();
    }
    const type = response.headers.get("Content-Type") ?? "";
    const parsed = type.includes("json") ? await response.json().catch(() => null) : response.status === 204 ? null : await response.blob();
    if (!response.ok && response.status !== 304) {
      const detail = parsed?.detail ?? `The server answered ${response.status}.`;
      throw new ApiError(detail, response.status, parsed?.code, parsed);
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  /** @param {string} path */
  get(path) {
    return this.request("GET", path).then((r) => r.body);
  }

  /**
   * A fresh access token from the refresh token (or, for a device account, its secret).
   * @param {boolean} [force]
   */
  async refresh(force = false) {
    if (!this.session) return;
    if (!force && this.session.expiresAt - Date.now() > 30_000) return;
    this.refreshing ??= (async () => {
      const session = /** @type {Session} */ (this.session);
      try {
        const answer = await this.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: session.refreshToken }, auth: false });
        this.keep(this.sessionFrom(answer.body, session));
      } catch (error) {
        if (error instanceof ApiError && !error.offline && session.deviceSecret) {
          const answer = await this.request("POST", "/api/v1/auth/device",
            { body: { accountId: session.accountId, deviceSecret: session.deviceSecret }, auth: false });
          this.keep(this.sessionFrom(answer.body, session));
        } else if (error instanceof ApiError && !error.offline) {
          this.keep(null);
          throw error;
        }
      } finally {
        this.refreshing = null;
      }
    })();
    await this.refreshing;
  }

  /**
   * @param {any} answer  the token answer (OAuth's snake_case names)
   * @param {Partial<Session>} [before]
   * @returns {Session}
   */
  sessionFrom(answer, before = {}) {
    return {
      ...before,
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? before.refreshToken,
      expiresAt: Date.now() + (answer.expires_in ?? 900) * 1000,
      accountId: answer.accountId ?? before.accountId,
    };
  }

  /** @param {string} username @param {string} password */
  async signIn(username, password) {
    const answer = await this.request("POST", "/api/v1/auth/login", { body: { username, password }, auth: false });
    this.keep({ ...this.sessionFrom(answer.body), username });
  }

  /** @param {string} username @param {string} password */
  async signUp(username, password) {
    await this.request("POST", "/api/v1/auth/register", { body: { username, password }, auth: false });
    await this.signIn(username, password);
  }

  /**
   * Signs in with a provider's ID token (the first time makes a linked account).
   * @param {string} provider @param {string} idToken @param {string} nonce
   */
  async signInWith(provider, idToken, nonce) {
    const answer = await this.request("POST", `/api/v1/auth/oidc/${encodeURIComponent(provider)}`,
      { body: { id_token: idToken, nonce }, auth: false });
    this.keep(this.sessionFrom(answer.body));
  }

  /** The OpenID Connect providers a browser can sign in with (those the YAML gives an authorize_url). */
  async providers() {
    /** @type {import("./oidc.js").Provider[]} */
    const providers = (await this.request("GET", "/api/v1/auth/oidc", { auth: false })).body.providers;
    return providers;
  }

  /** "Get Started": a device account, nothing to type or remember. */
  async getStarted() {
    const answer = await this.request("POST", "/api/v1/auth/device", { auth: false });
    this.keep({ ...this.sessionFrom(answer.body), deviceSecret: answer.body.deviceSecret });
  }

  /**
   * Signs up the device account this phone made when sign-in was skipped: it gets a user name and
   * password (or, `provider` given, that provider's identity) and keeps everything it holds.
   * Answers the session to keep (no device secret: the account signs in as any other now).
   * @param {{username: string, password: string} | {provider: string, idToken: string, nonce: string}} how
   * @returns {Promise<Session>}
   */
  async signUpDevice(how) {
    const accountId = /** @type {Session} */ (this.session).accountId;
    if ("provider" in how) {
      await this.request("POST", `/api/v1/auth/oidc/${encodeURIComponent(how.provider)}/sign-up`,
        { body: { accountId, id_token: how.idToken, nonce: how.nonce } });
    } else {
      await this.request("POST", "/api/v1/auth/device/sign-up", { body: { accountId, ...how } });
    }
    // The session as it is now (the request may have refreshed it).
    const { deviceSecret: _, ...rest } = /** @type {Session} */ (this.session);
    return "username" in how ? { ...rest, username: how.username } : rest;
  }

  /**
   * Opens a device account on this phone with the code from the phone it was made on.
   * @param {{accountId: string, deviceSecret: string}} account
   */
  async moveIn(account) {
    const answer = await this.request("POST", "/api/v1/auth/device", { body: account, auth: false });
    this.keep({ ...this.sessionFrom(answer.body, { accountId: account.accountId }), deviceSecret: account.deviceSecret });
  }

  async signOut() {
    if (this.session) {
      await this.request("POST", "/api/v1/auth/logout", { body: { refresh_token: this.session.refreshToken } }).catch(() => {});
    }
    this.keep(null);
  }
}
