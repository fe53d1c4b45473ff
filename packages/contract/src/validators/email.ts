import { isValidEmail as isWellFormedEmail } from "@brazilian-utils/brazilian-utils/is-valid-email";

// RFC 5321 limits: a path of 254 characters and a local part of 64. The library checks the shape
// (a practical subset of WHATWG's "valid e-mail address") but not these lengths.
const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;

/** Whether `value` is a deliverable-looking e-mail address for a customer or a PIX key: at most 254 characters. */
export function isValidEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH) return false;
  const at = value.lastIndexOf("@");
  return at > 0 && at <= MAX_LOCAL_PART_LENGTH && isWellFormedEmail(value);
}
