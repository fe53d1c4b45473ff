import { pixKeyTypeOf } from "./validators/pix-key.js";

/** The data a PIX payin's BR Code ("copia e cola") carries: who is paid, how much, and for which charge. */
export interface BrCodeFields {
  /** The merchant's PIX key that receives the payment (CPF, CNPJ, e-mail, `+55` phone or EVP). */
  pixKey: string;
  /** Name shown to the payer; folded to ASCII and cut to 25 characters. */
  merchantName: string;
  /** City shown to the payer; folded to ASCII and cut to 15 characters. */
  merchantCity: string;
  /** Amount in integer cents of BRL; absent when the payer types the amount. */
  amountCents?: number;
  /** Transaction id that reconciles the payment with its payin: 0-25 letters and digits (empty: none). */
  txid: string;
  /** Message shown to the payer; folded to ASCII and cut to what the account template still holds. */
  description?: string;
}

/** A BR Code payload read back into its fields, with the point of initiation and every top-level tag. */
export type ParsedBrCode = BrCodeFields & {
  /** `"12"`: for one payment only; `"11"`: reusable (also reported when the tag is absent). */
  pointOfInitiation: string;
  /** Every top-level tag's raw value, keyed by its two-digit id (`"26"`, `"54"`, `"63"`, …). */
  raw: Record<string, string>;
};

/** A PIX BR Code that cannot be built from the given fields, or a payload that is not a valid BR Code. */
export class BrCodeError extends Error {
  override readonly name = "BrCodeError";
  /** The field (`"txid"`, `"amountCents"`, …) or tag (`"54"`) at fault, when one is. */
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

// EMV MPM tags used by the PIX BR Code (BCB "Manual do BR Code").
const TAG = {
  payloadFormat: "00",
  pointOfInitiation: "01",
  merchantAccount: "26",
  mcc: "52",
  currency: "53",
  amount: "54",
  country: "58",
  merchantName: "59",
  merchantCity: "60",
  additionalData: "62",
  crc: "63",
} as const;
const PIX_GUI = "br.gov.bcb.pix";
const ACCOUNT_GUI = "00";
const ACCOUNT_KEY = "01";
const ACCOUNT_DESCRIPTION = "02";
const ADDITIONAL_TXID = "05";
const NO_TXID = "***";
const ONE_TIME = "12";
const REUSABLE = "11";
const MAX_NAME = 25;
const MAX_CITY = 15;
const MAX_TXID = 25;
const MAX_VALUE = 99;
// Tag 54 holds at most 13 characters: "9999999999.99".
const MAX_AMOUNT_CENTS = 999_999_999_999;
const TXID = /^[A-Za-z0-9]*$/;
const AMOUNT = /^(\d{1,10})(?:\.(\d{1,2}))?$/;
const CRC_SUFFIX = /6304([0-9A-F]{4})$/;
// ASCII: no character from U+0080 up (written so, the class names no control character).
const ASCII = /^[^\u0080-\uffff]*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const CRC_TABLE = /* @__PURE__ */ (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** The CRC16-CCITT (poly 0x1021, init 0xFFFF) a BR Code ends with, as 4 uppercase hex digits. */
export function crc16Ccitt(input: string): string {
  return crcHex(crcUpdate(0xffff, input));
}

// Carries a CRC16-CCITT state over `input`'s UTF-8 bytes, so a code's fixed start is summed once.
function crcUpdate(crc: number, input: string): number {
  // BR Codes are printable ASCII, where a character is its own UTF-8 byte; anything else is encoded.
  if (!ASCII.test(input)) {
    for (const byte of new TextEncoder().encode(input)) crc = step(crc, byte);
    return crc;
  }
  return crcUpdateAscii(crc, input);
}

// The same over text known to be ASCII (digits, letters and the template's own printable text).
function crcUpdateAscii(crc: number, input: string): number {
  for (let i = 0; i < input.length; i++) crc = step(crc, input.charCodeAt(i));
  return crc;
}

// "00".."FF": a CRC is written as two table lookups.
const HEX_BYTES = /* @__PURE__ */ Array.from({ length: 256 }, (_, byte) =>
  byte.toString(16).toUpperCase().padStart(2, "0"),
);

function crcHex(crc: number): string {
  return HEX_BYTES[crc >> 8]! + HEX_BYTES[crc & 0xff]!;
}

/**
 * The CRC state after a fixed text, as a function of the state before it. A CRC step is affine in
 * the state over GF(2), so the function is two 256-entry tables (by high and low byte) and a constant:
 * a merchant's fixed tags 58-60 in the middle of every code cost two lookups instead of a step per byte.
 */
interface CrcSkip {
  high: Uint16Array;
  low: Uint16Array;
  constant: number;
}

function crcSkipOver(text: string): CrcSkip {
  const constant = crcUpdate(0, text);
  const high = new Uint16Array(256);
  const low = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    high[byte] = crcUpdate(byte << 8, text) ^ constant;
    low[byte] = crcUpdate(byte, text) ^ constant;
  }
  return { high, low, constant };
}

function crcSkip(crc: number, skip: CrcSkip): number {
  return skip.high[crc >> 8]! ^ skip.low[crc & 0xff]! ^ skip.constant;
}

// One byte of CRC16-CCITT (poly 0x1021) through a 256-entry table: a payin's code is built per request.
function step(crc: number, byte: number): number {
  return ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!;
}

function tlv(tag: string, value: string): string {
  return `${tag}${String(value.length).padStart(2, "0")}${value}`;
}

// The BR Code character set is printable ASCII: accents are dropped ("São" → "Sao") and anything
// with no ASCII base letter is left out.
function toAscii(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text.trim();
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, "")
    .trim();
}

function displayText(value: unknown, max: number, field: string): string {
  if (typeof value !== "string") throw new BrCodeError(`${field} must be a string`, field);
  const text = toAscii(value).slice(0, max).trimEnd();
  if (text === "") throw new BrCodeError(`${field} must have at least one ASCII letter or digit`, field);
  return text;
}

// Integer cents to "reais.centavos" by string slicing: no float ever touches the amount.
function formatCents(cents: number): string {
  const digits = String(cents).padStart(3, "0");
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

function parseCents(amount: string): number {
  const match = AMOUNT.exec(amount);
  if (!match) {
    throw new BrCodeError(`amount (tag 54) "${amount}" is not a decimal amount in reais`, TAG.amount);
  }
  const cents = Number(`${match[1]}${(match[2] ?? "").padEnd(2, "0")}`);
  if (cents < 1) throw new BrCodeError("amount (tag 54) must be at least 0.01", TAG.amount);
  return cents;
}

/**
 * Builds the PIX BR Code ("copia e cola") payload of a charge, to show as text or QR code.
 * With an amount the code is for one payment (point of initiation `12`), without one it is reusable (`11`).
 *
 * @throws {BrCodeError} naming the field when the key is not a valid PIX key, the amount is not a
 * positive integer of cents, the txid is not 0-25 letters and digits, or the name or city is empty.
 *
 * @example
 * buildBrCode({ pixKey: "payouts@example.com", merchantName: "Loja Exemplo", merchantCity: "São Paulo",
 *   amountCents: 10000, txid: "pi01HZX3" });
 * // "00020101021226410014br.gov.bcb.pix0119payouts@example.com5204000053039865406100.00"
 * //   + "5802BR5912Loja Exemplo6009Sao Paulo62120508pi01HZX3630480A9"
 */
export function buildBrCode(fields: BrCodeFields): string {
  const { pixKey, amountCents, txid } = fields;
  // The checks run in this order on every call; a merchant seen before has passed the key's,
  // name's and city's, so only its amount and txid are checked again.
  const known = knownMerchant(fields);
  if (known === undefined && (typeof pixKey !== "string" || pixKeyTypeOf(pixKey) === null)) {
    throw new BrCodeError("pixKey must be a valid PIX key (CPF, CNPJ, EMAIL, PHONE or EVP)", "pixKey");
  }
  if (
    amountCents !== undefined &&
    !(Number.isSafeInteger(amountCents) && amountCents >= 1 && amountCents <= MAX_AMOUNT_CENTS)
  ) {
    throw new BrCodeError(`amountCents must be an integer from 1 to ${MAX_AMOUNT_CENTS}`, "amountCents");
  }
  if (typeof txid !== "string" || txid.length > MAX_TXID || !TXID.test(txid)) {
    throw new BrCodeError("txid must be 0-25 letters and digits", "txid");
  }
  const merchant = known ?? rememberMerchant(fields);

  const head = amountCents === undefined ? merchant.reusable : merchant.oneTime;
  // Around the merchant's fixed middle, the text is ASCII: the amount's digits, tags and the txid.
  const amount = amountCents === undefined ? "" : tlv(TAG.amount, formatCents(amountCents));
  const tail = `${tlv(TAG.additionalData, tlv(ADDITIONAL_TXID, txid === "" ? NO_TXID : txid)) + TAG.crc}04`;
  const crc = crcUpdateAscii(crcSkip(crcUpdateAscii(head.crc, amount), merchant.middleSkip), tail);
  return head.text + amount + merchant.middle + tail + crcHex(crc);
}

/** A code's text up to its amount, with the CRC state over it. */
interface CodeHead {
  text: string;
  crc: number;
}

/** What every code of one merchant shares: the start, for one payment or reusable, and tags 58-60. */
interface MerchantTemplate {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  description: string | undefined;
  oneTime: CodeHead;
  reusable: CodeHead;
  /** Tags 58-60 (country, name, city), between the amount and the txid. */
  middle: string;
  middleSkip: CrcSkip;
}

// A payin per request builds a code for the same merchant again and again: its checked and encoded
// fixed parts are kept, a few merchants at a time.
const MAX_MERCHANTS = 16;
const merchants = new Map<string, MerchantTemplate>();

function knownMerchant(fields: BrCodeFields): MerchantTemplate | undefined {
  const merchant = typeof fields.pixKey === "string" ? merchants.get(fields.pixKey) : undefined;
  return merchant !== undefined &&
    merchant.merchantName === fields.merchantName &&
    merchant.merchantCity === fields.merchantCity &&
    merchant.description === fields.description
    ? merchant
    : undefined;
}

// Called once the key is known valid; throws for the name, then the city, like buildBrCode always did.
function rememberMerchant(fields: BrCodeFields): MerchantTemplate {
  const { pixKey, description } = fields;
  const merchantName = displayText(fields.merchantName, MAX_NAME, "merchantName");
  const merchantCity = displayText(fields.merchantCity, MAX_CITY, "merchantCity");

  let account = tlv(ACCOUNT_GUI, PIX_GUI) + tlv(ACCOUNT_KEY, pixKey);
  if (description !== undefined) {
    // The description gets whatever room the 99-character account template has left.
    const room = MAX_VALUE - account.length - 4;
    const text = room > 0 ? toAscii(description).slice(0, room).trimEnd() : "";
    if (text !== "") account += tlv(ACCOUNT_DESCRIPTION, text);
  }
  const headOf = (pointOfInitiation: string): CodeHead => {
    const text =
      tlv(TAG.payloadFormat, "01") +
      tlv(TAG.pointOfInitiation, pointOfInitiation) +
      tlv(TAG.merchantAccount, account) +
      tlv(TAG.mcc, "0000") +
      tlv(TAG.currency, "986");
    return { text, crc: crcUpdate(0xffff, text) };
  };
  const middle =
    tlv(TAG.country, "BR") + tlv(TAG.merchantName, merchantName) + tlv(TAG.merchantCity, merchantCity);
  const merchant: MerchantTemplate = {
    pixKey,
    merchantName: fields.merchantName,
    merchantCity: fields.merchantCity,
    description,
    oneTime: headOf(ONE_TIME),
    reusable: headOf(REUSABLE),
    middle,
    middleSkip: crcSkipOver(middle),
  };
  if (merchants.size >= MAX_MERCHANTS) merchants.clear();
  merchants.set(pixKey, merchant);
  return merchant;
}

function readTlv(data: string, where: string): Map<string, string> {
  const tags = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const header = data.slice(at, at + 4);
    if (!/^\d{4}$/.test(header)) throw new BrCodeError(`malformed TLV in ${where} at position ${at}`);
    const tag = header.slice(0, 2);
    const length = Number(header.slice(2));
    const value = data.slice(at + 4, at + 4 + length);
    if (value.length !== length) throw new BrCodeError(`tag ${tag} in ${where} runs past the end`, tag);
    if (tags.has(tag)) throw new BrCodeError(`tag ${tag} appears twice in ${where}`, tag);
    tags.set(tag, value);
    at += 4 + length;
  }
  return tags;
}

function required(tags: Map<string, string>, tag: string, what: string): string {
  const value = tags.get(tag);
  if (value === undefined || value === "") throw new BrCodeError(`${what} (tag ${tag}) is missing`, tag);
  return value;
}

function expectValue(tags: Map<string, string>, tag: string, what: string, expected: string): void {
  const value = required(tags, tag, what);
  if (value !== expected)
    throw new BrCodeError(`${what} (tag ${tag}) must be "${expected}", got "${value}"`, tag);
}

/**
 * Reads a PIX BR Code ("copia e cola") payload back into its fields, after checking its CRC;
 * `amountCents` comes back as integer cents.
 * Only static codes that carry a PIX key are read (a dynamic code's PSP URL is not a key).
 *
 * @throws {BrCodeError} `"CRC mismatch"` when the checksum does not match (a typo or a truncated
 * copy), or naming the tag when the payload is not a well-formed PIX BR Code.
 */
export function parseBrCode(payload: string): ParsedBrCode {
  if (typeof payload !== "string") throw new BrCodeError("a BR Code payload must be a string");
  // The CRC is compared exactly as written (uppercase hex), so that every changed character,
  // including one inside the CRC itself, is caught.
  const crc = CRC_SUFFIX.exec(payload);
  if (!crc)
    throw new BrCodeError("the payload must end with the CRC tag 6304 and 4 uppercase hex digits", "63");
  if (crc16Ccitt(payload.slice(0, -4)) !== crc[1]) throw new BrCodeError("CRC mismatch", "63");

  const tags = readTlv(payload, "the payload");
  const order = [...tags.keys()];
  if (order[0] !== TAG.payloadFormat) throw new BrCodeError("the payload must start with tag 00", "00");
  if (order.at(-1) !== TAG.crc) throw new BrCodeError("the CRC (tag 63) must be the last tag", "63");
  expectValue(tags, TAG.payloadFormat, "payload format indicator", "01");
  expectValue(tags, TAG.currency, "currency", "986");
  expectValue(tags, TAG.country, "country", "BR");
  required(tags, TAG.mcc, "merchant category code");

  const pointOfInitiation = tags.get(TAG.pointOfInitiation) ?? REUSABLE;
  if (pointOfInitiation !== REUSABLE && pointOfInitiation !== ONE_TIME) {
    throw new BrCodeError(`point of initiation (tag 01) must be 11 or 12, got "${pointOfInitiation}"`, "01");
  }

  // The PIX account may sit in any merchant account template (26-51); it is the one whose GUI is PIX's.
  let account: Map<string, string> | undefined;
  for (let id = 26; id <= 51 && account === undefined; id++) {
    const value = tags.get(String(id));
    if (value === undefined) continue;
    const template = readTlv(value, `tag ${id}`);
    if (template.get(ACCOUNT_GUI)?.toLowerCase() === PIX_GUI) account = template;
  }
  if (account === undefined) throw new BrCodeError(`no merchant account template with GUI ${PIX_GUI}`, "26");
  const pixKey = account.get(ACCOUNT_KEY);
  if (pixKey === undefined || pixKey === "") {
    throw new BrCodeError("the PIX merchant account has no PIX key (tag 26-01)", TAG.merchantAccount);
  }

  const additional = tags.get(TAG.additionalData);
  const txid = additional === undefined ? "" : (readTlv(additional, "tag 62").get(ADDITIONAL_TXID) ?? "");
  const amount = tags.get(TAG.amount);
  const description = account.get(ACCOUNT_DESCRIPTION);

  const parsed: ParsedBrCode = {
    pixKey,
    merchantName: required(tags, TAG.merchantName, "merchant name"),
    merchantCity: required(tags, TAG.merchantCity, "merchant city"),
    txid: txid === NO_TXID ? "" : txid,
    pointOfInitiation,
    raw: Object.fromEntries(tags),
  };
  if (amount !== undefined) parsed.amountCents = parseCents(amount);
  if (description !== undefined) parsed.description = description;
  return parsed;
}

/** Whether `payload` is a well-formed PIX BR Code with a matching CRC, as `parseBrCode` reads it. */
export function isValidBrCode(payload: string): boolean {
  try {
    parseBrCode(payload);
    return true;
  } catch {
    return false;
  }
}
