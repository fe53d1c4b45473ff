import { generateCnpj } from "@brazilian-utils/brazilian-utils/generate-cnpj";
import { generateCpf } from "@brazilian-utils/brazilian-utils/generate-cpf";
import { generatePixPayload } from "@brazilian-utils/brazilian-utils/generate-pix-payload";
import { getPixPayloadInfo } from "@brazilian-utils/brazilian-utils/get-pix-payload-info";
import { isValidPixPayload } from "@brazilian-utils/brazilian-utils/is-valid-pix-payload";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BrCodeFields, buildBrCode, crc16Ccitt, isValidBrCode, parseBrCode } from "./br-code.js";
import { isValidPixKey } from "./validators/pix-key.js";

const EVP = "123e4567-e12b-12d1-a456-426655440000";
const BASE: BrCodeFields = {
  pixKey: EVP,
  merchantName: "Loja Exemplo",
  merchantCity: "Sao Paulo",
  amountCents: 10000,
  txid: "pi01HZX3ABC",
};
// The Banco Central's static example, also in @brazilian-utils' docs (no amount, no txid, no tag 01).
const BCB_EXAMPLE =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
  "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

/** A payload body completed with its CRC tag, for hand-made payloads. */
function withCrc(body: string): string {
  return `${body}6304${crc16Ccitt(`${body}6304`)}`;
}

/** `payload` (tags in ascending order, as buildBrCode writes them) with tag `tag` set to `value`, CRC recomputed. */
function replaceTag(payload: string, tag: string, value: string): string {
  const raw = { ...parseBrCode(payload).raw, [tag]: value };
  let body = "";
  for (const id of Object.keys(raw).sort()) {
    const next = raw[id] ?? "";
    if (id !== "63") body += `${id}${String(next.length).padStart(2, "0")}${next}`;
  }
  return withCrc(body);
}

const printable = (max: number) =>
  fc
    .string({ unit: "grapheme-ascii", minLength: 1, maxLength: max })
    .filter((text) => text.trim() === text && text !== "");

const pixKey = fc.oneof(
  fc.nat().map(() => generateCpf()),
  fc.constantFrom<1 | 2>(1, 2).map((version) => generateCnpj(version)),
  fc.emailAddress().filter((email) => isValidPixKey("EMAIL", email)),
  fc.stringMatching(/^\+55(11|21|61|85)9\d{8}$/),
  fc.mixedCase(fc.uuid()),
);

// Every field in its canonical form (ASCII, trimmed, within its length), so build → parse gives it back.
const fields: fc.Arbitrary<BrCodeFields> = pixKey.chain((key) =>
  fc.record(
    {
      pixKey: fc.constant(key),
      merchantName: printable(25),
      merchantCity: printable(15),
      amountCents: fc.integer({ min: 1, max: 999_999_999_999 }),
      txid: fc.stringMatching(/^[A-Za-z0-9]{0,25}$/),
      // What the 99-character account template leaves after the GUI and the key.
      description: 73 - key.length > 0 ? printable(73 - key.length) : fc.constant(undefined),
    },
    { requiredKeys: ["pixKey", "merchantName", "merchantCity", "txid"] },
  ),
);

describe("crc16Ccitt: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), 4 uppercase hex digits", () => {
  it.each([
    ["123456789", "29B1"],
    ["", "FFFF"],
    [BCB_EXAMPLE.slice(0, -4), "1D3D"],
  ])("gives %j → %s", (input, crc) => {
    expect(crc16Ccitt(input)).toBe(crc);
  });

  it("always answers 4 uppercase hex digits", () => {
    fc.assert(fc.property(fc.string(), (input) => /^[0-9A-F]{4}$/.test(crc16Ccitt(input))));
  });
});

describe("buildBrCode: the PIX copia e cola payload of a charge", () => {
  it("writes every tag of the BR Code in order, with the CRC last", () => {
    const payload = buildBrCode(BASE);
    expect(payload).toBe(
      "000201" +
        "010212" +
        "26580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
        "52040000" +
        "5303986" +
        "5406100.00" +
        "5802BR" +
        "5912Loja Exemplo" +
        "6009Sao Paulo" +
        "62150511pi01HZX3ABC" +
        `6304${crc16Ccitt(payload.slice(0, -4))}`,
    );
  });

  it.each([
    [1, "0.01"],
    [10, "0.10"],
    [99, "0.99"],
    [100, "1.00"],
    [10000, "100.00"],
    [123456, "1234.56"],
    [999_999_999_999, "9999999999.99"],
  ])("writes %i cents as %s reais (tag 54)", (amountCents, reais) => {
    expect(parseBrCode(buildBrCode({ ...BASE, amountCents })).raw["54"]).toBe(reais);
  });

  it("is for one payment (point of initiation 12) with an amount, reusable (11) without one", () => {
    expect(parseBrCode(buildBrCode(BASE)).raw["01"]).toBe("12");
    const { amountCents: _, ...open } = BASE;
    const parsed = parseBrCode(buildBrCode(open));
    expect(parsed.raw["01"]).toBe("11");
    expect(parsed.raw["54"]).toBeUndefined();
  });

  it('writes txid "***" when the charge has none', () => {
    expect(parseBrCode(buildBrCode({ ...BASE, txid: "" })).raw["62"]).toBe("0503***");
  });

  it("writes the description as 26-02", () => {
    const payload = buildBrCode({ ...BASE, description: "Pedido 123" });
    expect(payload).toContain("26720014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400000210Pedido 123");
  });

  it.each([
    ["merchantName", "Padaria São João Açaí", "Padaria Sao Joao Acai"],
    ["merchantName", "Comércio de Eletrônicos Brasileiros Ltda", "Comercio de Eletronicos B"],
    ["merchantName", "  Loja  ", "Loja"],
    ["merchantName", "Loja ✓ Exemplo", "Loja  Exemplo"],
    ["merchantCity", "São Paulo", "Sao Paulo"],
    ["merchantCity", "Florianópolis SC", "Florianopolis S"],
    ["merchantCity", "Rio de Janeiro  X", "Rio de Janeiro"],
    ["description", "Pagamento nº 1 — ótimo", "Pagamento n 1  otimo"],
  ] as const)("folds %s %j to ASCII within its length: %j", (field, input, written) => {
    expect(parseBrCode(buildBrCode({ ...BASE, [field]: input }))[field]).toBe(written);
  });

  it("cuts the description to what the 99-character account template still holds", () => {
    const pixKey = `${"a".repeat(50)}@example.com`;
    const parsed = parseBrCode(buildBrCode({ ...BASE, pixKey, description: "x".repeat(99) }));
    expect(parsed.description).toBe("x".repeat(73 - pixKey.length));
    expect(parsed.raw["26"]).toHaveLength(99);
  });

  it("leaves the description out when the key fills the template", () => {
    const pixKey = `${"a".repeat(62)}@example.com.br`;
    expect(parseBrCode(buildBrCode({ ...BASE, pixKey, description: "Pedido" })).description).toBeUndefined();
  });

  it.each([
    ["pixKey", { pixKey: "" }, "an empty key"],
    ["pixKey", { pixKey: "123.456.789-09" }, "a masked CPF"],
    ["pixKey", { pixKey: "not a key" }, "a key of no type"],
    ["amountCents", { amountCents: 0 }, "a zero amount"],
    ["amountCents", { amountCents: -100 }, "a negative amount"],
    ["amountCents", { amountCents: 10.5 }, "a fraction of a cent"],
    ["amountCents", { amountCents: Number.NaN }, "NaN"],
    ["amountCents", { amountCents: 1_000_000_000_000 }, "more than the 13 characters of tag 54 hold"],
    ["txid", { txid: "a".repeat(26) }, "a txid of 26 characters"],
    ["txid", { txid: "pi_01HZX3" }, "a txid with an underscore"],
    ["txid", { txid: "***" }, "the no-txid marker itself"],
    ["merchantName", { merchantName: "" }, "an empty name"],
    ["merchantName", { merchantName: "   " }, "a blank name"],
    ["merchantName", { merchantName: "東京" }, "a name with no ASCII character"],
    ["merchantCity", { merchantCity: "" }, "an empty city"],
  ] as const)("refuses %s: %o (%s)", (field, change, _reason) => {
    expect(() => buildBrCode({ ...BASE, ...change })).toThrow(
      expect.objectContaining({ name: "BrCodeError", field, message: expect.stringContaining(field) }),
    );
  });

  it("gives a payload the library reads back to the same charge", () => {
    fc.assert(
      fc.property(fields, (input) => {
        const payload = buildBrCode(input);
        const info = getPixPayloadInfo(payload);
        expect(isValidPixPayload(payload)).toBe(true);
        expect(info).toMatchObject({
          key: input.pixKey,
          merchantName: input.merchantName,
          merchantCity: input.merchantCity,
          pointOfInitiation: input.amountCents === undefined ? "static" : "dynamic",
        });
        expect(info?.txid ?? "").toBe(input.txid);
        expect(info?.description).toBe(input.description);
        expect(info?.amount === undefined ? undefined : Math.round(info.amount * 100)).toBe(
          input.amountCents,
        );
      }),
    );
  });
});

describe("parseBrCode: reads a payload back after checking its CRC", () => {
  it("reads the Banco Central's static example", () => {
    expect(parseBrCode(BCB_EXAMPLE)).toEqual({
      pixKey: EVP,
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
      txid: "",
      pointOfInitiation: "11",
      raw: {
        "00": "01",
        "26": "0014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000",
        "52": "0000",
        "53": "986",
        "58": "BR",
        "59": "Fulano de Tal",
        "60": "BRASILIA",
        "62": "0503***",
        "63": "1D3D",
      },
    });
  });

  it("reads the library's payloads (key normalized, amount in reais)", () => {
    const payload = generatePixPayload({
      key: "+5511987654321",
      merchantName: "Fulano de Tal",
      merchantCity: "Brasília",
      amount: 123.45,
      txid: "abc123",
      description: "Pedido 1",
    });
    expect(parseBrCode(payload ?? "")).toMatchObject({
      pixKey: "+5511987654321",
      merchantName: "Fulano de Tal",
      merchantCity: "Brasilia",
      amountCents: 12345,
      txid: "abc123",
      description: "Pedido 1",
    });
  });

  it.each([
    ["10", 1000],
    ["10.5", 1050],
    ["0.01", 1],
    ["1234567890.99", 123456789099],
  ])("reads amount %s as %i cents", (reais, cents) => {
    expect(parseBrCode(replaceTag(buildBrCode(BASE), "54", reais)).amountCents).toBe(cents);
  });

  it("gives back exactly the fields it was built from", () => {
    fc.assert(
      fc.property(fields, (input) => {
        const { pointOfInitiation, raw, ...parsed } = parseBrCode(buildBrCode(input));
        expect(parsed).toEqual(input);
        expect(pointOfInitiation).toBe(input.amountCents === undefined ? "11" : "12");
        expect(Number.isInteger(parsed.amountCents ?? 0)).toBe(true);
      }),
    );
  });

  it("rejects any payload with one character changed, the CRC's own characters included", () => {
    fc.assert(
      fc.property(
        fields,
        fc.nat(),
        fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
        (input, n, char) => {
          const payload = buildBrCode(input);
          const at = n % payload.length;
          fc.pre(payload[at] !== char);
          const changed = payload.slice(0, at) + char + payload.slice(at + 1);
          expect(() => parseBrCode(changed)).toThrow(expect.objectContaining({ name: "BrCodeError" }));
          expect(isValidBrCode(changed)).toBe(false);
        },
      ),
    );
  });

  it("rejects a change in each of the CRC's 4 characters, lowercase included", () => {
    const payload = buildBrCode(BASE);
    const crc = payload.slice(-4);
    for (let at = 0; at < 4; at++) {
      for (const char of "0123456789ABCDEFabcdef") {
        if (char === crc[at]) continue;
        const changed = `${payload.slice(0, -4)}${crc.slice(0, at)}${char}${crc.slice(at + 1)}`;
        expect(isValidBrCode(changed), changed).toBe(false);
      }
    }
    const lowercased = `${payload.slice(0, -4)}${crc.toLowerCase()}`;
    if (lowercased !== payload) expect(isValidBrCode(lowercased)).toBe(false);
  });

  it('says "CRC mismatch" for a typo', () => {
    const payload = buildBrCode(BASE);
    const typo = payload.replace("Loja", "Lojo");
    expect(() => parseBrCode(typo)).toThrow(
      expect.objectContaining({ name: "BrCodeError", message: "CRC mismatch", field: "63" }),
    );
  });

  const good = buildBrCode(BASE);
  it.each([
    ["no CRC tag", good.slice(0, -8), /must end with the CRC tag/],
    ["a truncated payload", good.slice(0, -1), /must end with the CRC tag/],
    ["trailing whitespace", `${good} `, /must end with the CRC tag/],
    ["the CRC not last", `${good}5802BR`, /must end with the CRC tag/],
    ["a payload format other than 01", replaceTag(good, "00", "02"), /payload format indicator \(tag 00\)/],
    ["a currency other than 986", replaceTag(good, "53", "840"), /currency \(tag 53\) must be "986"/],
    ["a country other than BR", replaceTag(good, "58", "US"), /country \(tag 58\) must be "BR"/],
    ["an empty merchant name", replaceTag(good, "59", ""), /merchant name \(tag 59\) is missing/],
    ["a point of initiation other than 11 or 12", replaceTag(good, "01", "13"), /tag 01\) must be 11 or 12/],
    ["an amount with a comma", replaceTag(good, "54", "100,00"), /amount \(tag 54\) "100,00"/],
    ["an amount with three decimals", replaceTag(good, "54", "1.000"), /amount \(tag 54\) "1.000"/],
    ["a negative amount", replaceTag(good, "54", "-1.00"), /amount \(tag 54\) "-1.00"/],
    ["a zero amount", replaceTag(good, "54", "0.00"), /at least 0.01/],
    [
      "a merchant account of another scheme",
      replaceTag(good, "26", "0014br.gov.bcb.xyz0103abc"),
      /GUI br.gov.bcb.pix/,
    ],
    ["a PIX account without a key", replaceTag(good, "26", "0014br.gov.bcb.pix0205hello"), /no PIX key/],
    ["a length running past the end", withCrc("0002015999Loja"), /tag 59 .* runs past the end/],
    ["a non-numeric tag", withCrc("000201AB04abcd"), /malformed TLV/],
    ["a repeated tag", withCrc(`${good.slice(0, -8)}5802BR`), /tag 58 appears twice/],
    [
      "tag 00 not first",
      withCrc(`5802BR${good.slice(0, -8).replace("5802BR", "")}`),
      /must start with tag 00/,
    ],
    ["an empty string", "", /must end with the CRC tag/],
  ])("rejects %s", (_, payload, message) => {
    expect(() => parseBrCode(payload)).toThrow(
      expect.objectContaining({ name: "BrCodeError", message: expect.stringMatching(message) }),
    );
    expect(isValidBrCode(payload)).toBe(false);
  });
});

describe("isValidBrCode", () => {
  it("accepts what buildBrCode writes and the Banco Central's example", () => {
    expect(isValidBrCode(BCB_EXAMPLE)).toBe(true);
    fc.assert(fc.property(fields, (input) => isValidBrCode(buildBrCode(input))));
  });

  it("never throws, whatever it is given", () => {
    fc.assert(fc.property(fc.string(), (input) => typeof isValidBrCode(input) === "boolean"));
  });
});
