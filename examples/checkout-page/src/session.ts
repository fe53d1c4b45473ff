// The shopper's session: an unguessable id in an HttpOnly cookie, set with the page. The orders remember
// the session that placed them, and the payment-status endpoint answers only that session about a payin.

/** The session cookie's name. */
export const SESSION_COOKIE = "sid";

/** The session id a request carries, if any (the page's `sid` cookie). */
export function sessionOf(request: Request): string | undefined {
  const cookie = request.headers.get("cookie") ?? "";
  const value = /(?:^|;\s*)sid=([A-Za-z0-9_-]{22,64})(?:;|$)/.exec(cookie)?.[1];
  return value;
}

/**
 * A new session: its id (128 random bits) and the `Set-Cookie` value that gives it to the browser.
 * HttpOnly (no page script reads it), SameSite=Lax (sent back from the bank's redirect), no `Secure`
 * because the demo runs on http://127.0.0.1; a deployed shop adds `Secure`.
 */
export function newSession(): { id: string; cookie: string } {
  const id = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
  return { id, cookie: `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax` };
}
