import { BrCodeError, buildBrCode, PAYIN_ID_PREFIX } from "@paykit/contract";
import { invalidData } from "./errors.js";

/** The name and city the mock's BR Codes show to the payer. */
const MERCHANT = { name: "Paykit Mock Loja", city: "Sao Paulo" } as const;

/**
 * The PIX charges of one merchant key: the BR Code ("copia e cola") of each payin, from the amount
 * and the payin's ULID as txid. The code is a pure function of these, so a payin keeps only a
 * reference to its account's `PixCharge` and the code is rebuilt when shown: a million PIX payins do
 * not hold a million 150-character codes.
 */
export class PixCharge {
  constructor(readonly pixKey: string) {}

  /** The BR Code of a payin; `INVALID_DATA` on `amount` when it is too large for a PIX charge. */
  code(amountCents: number, payinId: string): string {
    // A txid holds at most 25 characters; the ULID's first character is 0 until the year 10889.
    const txid = payinId.slice(PAYIN_ID_PREFIX.length + 1);
    try {
      return buildBrCode({
        pixKey: this.pixKey,
        merchantName: MERCHANT.name,
        merchantCity: MERCHANT.city,
        amountCents,
        txid,
      });
    } catch (error) {
      if (error instanceof BrCodeError) throw invalidData("amount", "is too large for a PIX charge");
      throw error;
    }
  }
}
