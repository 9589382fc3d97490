// The REST API as the dashboard uses it: the session cookie goes along by itself (HttpOnly, so
// scripts never see it); the CSRF token lives only in this module's memory and goes in the
// X-CSRF-Token header of every request that changes something.

let csrfToken = null;
let onUnauthorized = () => {};

/** An API error: the HTTP status and the server's {error, message}. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || 'HTTP ' + status);
    this.status = status;
    this.code = code;
  }
}

export function setCsrfToken(token) {
  csrfToken = token || null;
}

/** Called when a request (other than a login) is answered 401: the session is gone. */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

async function request(method, path, body, { login = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, 'network', 'The server cannot be reached.');
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    if (response.status === 401 && !login) onUnauthorized();
    throw new ApiError(response.status, data && data.error, data && data.message);
  }
  return data;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body === undefined ? {} : body),
  put: (path, body) => request('PUT', path, body),
  patch: (path, body) => request('PATCH', path, body),
  del: (path) => request('DELETE', path),
};

/** Opens a session for a token; returns {role, csrfToken}. Wrong tokens throw ApiError 401. */
export async function login(token) {
  const session = await request('POST', '/api/session', { token }, { login: true });
  setCsrfToken(session.csrfToken);
  return session;
}

/** The current session {role, seesPayloads, canOperate, canEnqueue, csrfToken}, or null when logged out. */
export async function currentSession() {
  try {
    const session = await request('GET', '/api/session', undefined, { login: true });
    setCsrfToken(session.csrfToken);
    return session;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export async function logout() {
  try {
    await request('DELETE', '/api/session', undefined, { login: true });
  } finally {
    setCsrfToken(null);
  }
}

/** A query string of the non-empty values: qs({state: 'dead', kind: ''}) is "?state=dead". */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}
