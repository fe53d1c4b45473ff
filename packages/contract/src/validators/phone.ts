import { getAreaCodeInfo } from "@brazilian-utils/brazilian-utils/get-area-code-info";

// docs/decisions/customer.md: digits only, 55 + area code (DDD) + 8-digit landline or 9-digit mobile.
// The library's isValidPhone is not used: it strips masks and a "+", and "55" is also a DDD (RS),
// so its reading of a bare 55-prefixed number is ambiguous.
// Exported for the OpenAPI document, which states the same shape as a pattern (the area code list it cannot).
export const PHONE_DIGITS = /^55(\d{2})(\d{8}|9\d{8})$/;

/** Whether `value` is a payer's phone as the service takes it: digits only, `55` + DDD + 8 or 9 digits (a 9-digit number starts with 9). */
export function isValidPhone(value: string): boolean {
  const match = PHONE_DIGITS.exec(value);
  return match?.[1] !== undefined && getAreaCodeInfo(match[1]) !== null;
}
