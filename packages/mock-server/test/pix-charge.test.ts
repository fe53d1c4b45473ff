import { buildBrCode, parseBrCode } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { PixCharge } from "../src/engine/pix-charge.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ulid = (seed: number) =>
  Array.from({ length: 26 }, (_, i) => CROCKFORD[(seed * 7919 + i * 104_729 + i * i * seed) % 32]).join("");

// The mock's fast BR Code (src/engine/pix-charge.ts) must be byte for byte the contract's buildBrCode.
describe("the BR Code of a PIX payin", () => {
  const keys = [crypto.randomUUID(), crypto.randomUUID(), "37a82ff3-0d9b-457b-9c01-242bd2cdf498"];
  const amounts = [1, 9, 10, 99, 100, 101, 999, 10_000, 12_345, 1_000_000, 123_456_789, 999_999_999_999];

  it.each(keys)("equals the contract's buildBrCode for every amount and many txids (key %s)", (key) => {
    const charge = new PixCharge(key);
    for (const amountCents of amounts) {
      for (let seed = 1; seed <= 40; seed++) {
        const id = `pi_0${ulid(seed * amountCents).slice(1)}`;
        const expected = buildBrCode({
          pixKey: key,
          merchantName: "Paykit Mock Loja",
          merchantCity: "Sao Paulo",
          amountCents,
          txid: id.slice(4),
        });
        expect(charge.code(amountCents, id)).toBe(expected);
      }
    }
    const code = charge.code(12_345, `pi_0${ulid(3).slice(1)}`);
    expect(parseBrCode(code)).toMatchObject({ pixKey: key, amountCents: 12_345, txid: ulid(3).slice(1) });
  });

  it("refuses an amount too large for tag 54 as INVALID_DATA on amount", () => {
    expect(() => new PixCharge(keys[0]!).code(1_000_000_000_000, `pi_0${ulid(1).slice(1)}`)).toThrow(
      expect.objectContaining({
        code: "INVALID_DATA",
        details: [{ path: "amount", message: expect.any(String) }],
      }),
    );
  });
});
