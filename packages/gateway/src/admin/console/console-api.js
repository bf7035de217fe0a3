// The admin console's calls of the admin API (console.js): the token the page was given, kept for
// the browser tab's session only, sent with each call.
export const TOKEN_KEY = 'gateway-admin-token';

export const token = () => sessionStorage.getItem(TOKEN_KEY) ?? '';

/** A call of the admin API: its JSON, or an Error with the API's message (`status` on it). */
export async function api(path, init = {}) {
  const res = await fetch(`admin/${path}`, { ...init, headers: { authorization: `Bearer ${token()}`, ...init.headers } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(body.message ?? `${res.status} ${res.statusText}`), { status: res.status });
  return body;
}
