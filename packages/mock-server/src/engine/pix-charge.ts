import { BrCodeError, buildBrCode, PAYIN_ID_PREFIX } from "@paykit/contract";
import { invalidData } from "./http.js";

/** The name and city the mock's BR Codes show to the payer. */
const MERCHANT = { name: "Paykit Mock Loja", city: "Sao Paulo" } as const;
/** Tag 54 holds at most "9999999999.99" (the contract's bound). */
const MAX_AMOUNT_CENTS = 999_999_999_999;
const TXID_LENGTH = 25;

/**
 * WORKAROUND (report to the contract's owner): `buildBrCode` of @paykit/contract costs ~6 µs per call
 * (bitwise CRC over a TextEncoder copy, Unicode folding of the constant name and city), a quarter of
 * a PIX payin's time in the mock. Per merchant key the mock asks the contract once for a reference
 * code, keeps the parts that do not change (everything before the amount, everything between amount
 * and txid), and per payin only writes the amount and txid and a table-driven CRC16-CCITT. The
 * template is checked against the contract's own `buildBrCode` on a second sample when it is made;
 * if they ever differ (the contract changed its layout), the contract's builder is used instead.
 * Delete this file once the contract's builder is fast.
 */
interface Template {
  head: string;
  middle: string;
}

const CRC_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

// CRC16-CCITT (poly 0x1021, init 0xFFFF) of an ASCII payload, as the contract's `crc16Ccitt`.
function crc16(payload: string): string {
  let crc = 0xffff;
  for (let i = 0; i < payload.length; i++) {
    crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ payload.charCodeAt(i)) & 0xff]!;
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

function contractCode(pixKey: string, amountCents: number, txid: string): string {
  return buildBrCode({
    pixKey,
    merchantName: MERCHANT.name,
    merchantCity: MERCHANT.city,
    amountCents,
    txid,
  });
}

function reais(cents: number): string {
  const digits = String(cents).padStart(3, "0");
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

function fromTemplate(template: Template, amountCents: number, txid: string): string {
  const amount = reais(amountCents);
  const payload = `${template.head}54${String(amount.length).padStart(2, "0")}${amount}${template.middle}${txid}6304`;
  return payload + crc16(payload);
}

function templateOf(pixKey: string): Template | null {
  const sampleTxid = "0".repeat(TXID_LENGTH);
  const reference = contractCode(pixKey, 1, sampleTxid);
  const amountAt = reference.indexOf("54040.01");
  const txidAt = reference.length - 8 - TXID_LENGTH;
  if (amountAt <= 0 || reference.slice(txidAt) !== `${sampleTxid}6304${reference.slice(-4)}`) return null;
  const candidate = { head: reference.slice(0, amountAt), middle: reference.slice(amountAt + 8, txidAt) };
  const txid = "1J2K3M4N5P6Q7R8S9T0VWXYZA";
  return fromTemplate(candidate, 123_456_789, txid) === contractCode(pixKey, 123_456_789, txid)
    ? candidate
    : null;
}

/**
 * The PIX charges of one merchant key: the BR Code ("copia e cola") of each payin, from the amount
 * and the payin's ULID as txid. The code is a pure function of these, so a payin keeps only a
 * reference to its account's `PixCharge` and the code is rebuilt when shown: a million PIX payins do
 * not hold a million 150-character codes.
 */
export class PixCharge {
  // Made on first use; null when the check against the contract failed.
  #template: Template | null | undefined;

  constructor(readonly pixKey: string) {}

  /** The BR Code of a payin; `INVALID_DATA` on `amount` when it is too large for a PIX charge. */
  code(amountCents: number, payinId: string): string {
    // A txid holds at most 25 characters; the ULID's first character is 0 until the year 10889.
    const txid = payinId.slice(PAYIN_ID_PREFIX.length + 1);
    this.#template ??= templateOf(this.pixKey);
    const template = this.#template;
    const valid = Number.isSafeInteger(amountCents) && amountCents >= 1 && amountCents <= MAX_AMOUNT_CENTS;
    if (template !== null && valid && txid.length === TXID_LENGTH && /^[0-9A-Z]+$/.test(txid)) {
      return fromTemplate(template, amountCents, txid);
    }
    try {
      return contractCode(this.pixKey, amountCents, txid);
    } catch (error) {
      if (error instanceof BrCodeError) throw invalidData("amount", "is too large for a PIX charge");
      throw error;
    }
  }
}
