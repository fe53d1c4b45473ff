const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** The body as a string, decoding bytes as UTF-8 (the service sends UTF-8 JSON). */
export function bodyToString(body: string | Uint8Array | ArrayBuffer): string {
  if (typeof body === "string") return body;
  return decoder.decode(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** Bytes of a standard base64 string, or null when it is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Standard base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary);
}
