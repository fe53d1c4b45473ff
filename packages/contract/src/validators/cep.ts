// The library's isValidCep also strips dots, dashes and spaces; we take digits only (docs/decisions/customer.md),
// and once the value is 8 digits there is nothing left for the library to check.
const CEP_DIGITS = /^\d{8}$/;

/** Whether `value` is a payer's postal code (CEP) as the service takes it: exactly 8 digits, no mask. */
export function isValidCep(value: string): boolean {
  return CEP_DIGITS.test(value);
}
