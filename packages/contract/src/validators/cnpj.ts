import { isValidCnpj as hasValidCnpjCheckDigits } from "@brazilian-utils/brazilian-utils/is-valid-cnpj";

// 12 base characters (digits or, since the 2026 alphanumeric CNPJ, uppercase letters) and 2 check
// digits. Checked here because the library also takes masks and lowercase letters.
export const CNPJ_CHARS = /^[0-9A-Z]{12}\d{2}$/;

/** Whether `value` is a company's CNPJ: 14 characters, no mask, numeric or the new alphanumeric form, valid check digits. */
export function isValidCnpj(value: string): boolean {
  // version 2 accepts both the numeric and the alphanumeric forms (and still rejects 00000000000000).
  return CNPJ_CHARS.test(value) && hasValidCnpjCheckDigits(value, { version: 2 });
}
