import { isValidCnpj } from "./cnpj.js";
import { isValidCpf } from "./cpf.js";
import { isValidEmail } from "./email.js";
import { isValidPhone } from "./phone.js";

/** The kinds of PIX key a payout can be sent to (spec: payout `pixKeyType`). */
export const PIX_KEY_TYPES = ["CPF", "CNPJ", "EMAIL", "PHONE", "EVP"] as const;

/** The kind of PIX key a payout is sent to. */
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

// The DICT caps every key at 77 characters; only an e-mail can come close.
export const MAX_EMAIL_KEY_LENGTH = 77;
// A random key (EVP) is a UUID; the DICT issues v4 but does not constrain the version nibble. Spelled
// without the `i` flag, so the OpenAPI document states it as the same pattern.
export const EVP_KEY = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * Whether `key` is a well-formed PIX key of the given `type`, as a payout's `pixKey` must be
 * (docs/decisions/pix-keys.md). Whether the key is registered in the directory is the service's call.
 *
 * - CPF: 11 digits with valid check digits.
 * - CNPJ: 14 characters, numeric or alphanumeric, valid check digits.
 * - EMAIL: a valid address of at most 77 characters.
 * - PHONE: `+55`, a valid area code and an 8- or 9-digit number (a 9-digit number starts with 9).
 * - EVP: a UUID, 8-4-4-4-12 hex digits, any version, either case.
 *
 * @example
 * isValidPixKey("EMAIL", "payouts@example.com"); // true
 * isValidPixKey("CPF", "payouts@example.com"); // false
 */
export function isValidPixKey(type: PixKeyType, key: string): boolean {
  switch (type) {
    case "CPF":
      return isValidCpf(key);
    case "CNPJ":
      return isValidCnpj(key);
    case "EMAIL":
      return key.length <= MAX_EMAIL_KEY_LENGTH && isValidEmail(key);
    case "PHONE":
      // The phone key is E.164: the payer phone rule (55 + DDD + number) behind a "+".
      return key.startsWith("+") && isValidPhone(key.slice(1));
    case "EVP":
      return EVP_KEY.test(key);
    default:
      return false;
  }
}

/**
 * The type of PIX key that `key` is a valid key of, or `null` when it is none; for error
 * messages such as "pixKey looks like an EMAIL key". The five formats are disjoint, so the
 * answer is unique.
 */
export function pixKeyTypeOf(key: string): PixKeyType | null {
  return PIX_KEY_TYPES.find((type) => isValidPixKey(type, key)) ?? null;
}
