import { isValidCpf as hasValidCpfCheckDigits } from "@brazilian-utils/brazilian-utils/is-valid-cpf";

// The library also accepts masks and whitespace ("123.456.789-09"); we take digits only
// (docs/decisions/customer.md). Exported for the OpenAPI document, which states the same shape as a pattern.
export const CPF_DIGITS = /^\d{11}$/;

/** Whether `value` is a payer's CPF as the service takes it: 11 digits, no mask, valid check digits, not all one digit. */
export function isValidCpf(value: string): boolean {
  return CPF_DIGITS.test(value) && hasValidCpfCheckDigits(value);
}
