import { isValidBrCode, parseBrCode } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { PixCharge } from "../src/domain/pix-charge.js";

describe("the BR Code of a PIX payin", () => {
  const key = "37a82ff3-0d9b-457b-9c01-242bd2cdf498";
  const id = "pi_01M80CM1F9ETEMR3GJ26W1WN42";

  it.each([1, 10, 100, 12_345, 999_999_999_999])(
    "encodes %i cents, the key and the payin's ULID as txid",
    (amountCents) => {
      const code = new PixCharge(key).code(amountCents, id);
      expect(isValidBrCode(code)).toBe(true);
      expect(parseBrCode(code)).toMatchObject({
        pixKey: key,
        amountCents,
        txid: "1M80CM1F9ETEMR3GJ26W1WN42",
        merchantName: "Paykit Mock Loja",
        merchantCity: "Sao Paulo",
      });
    },
  );

  it("refuses an amount too large for tag 54 as INVALID_DATA on amount", () => {
    expect(() => new PixCharge(key).code(1_000_000_000_000, id)).toThrow(
      expect.objectContaining({
        code: "INVALID_DATA",
        details: [{ path: "amount", message: expect.any(String) }],
      }),
    );
  });
});
