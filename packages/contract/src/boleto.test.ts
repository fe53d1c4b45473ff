import { generateBoleto } from "@brazilian-utils/brazilian-utils/generate-boleto";
import { getBoletoInfo } from "@brazilian-utils/brazilian-utils/get-boleto-info";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BoletoFields,
  boletoDueDateFactor,
  boletoDueDateFromFactor,
  buildBoletoBarcode,
  buildBoletoLine,
  isValidBoletoLine,
  parseBoletoLine,
} from "./boleto.js";

const DAY_MS = 86_400_000;
const REFERENCE = new Date("2026-05-15T12:00:00Z");
const BASE: BoletoFields = {
  bankCode: "001",
  amountCents: 10000,
  dueDate: "2026-05-18",
  freeField: "1234567890123456789012345",
};

// An independent módulo 10 / módulo 11 for hand-made lines (a currency or factor buildBoletoLine refuses).
function mod10(digits: string): string {
  const sum = [...digits]
    .reverse()
    .map((digit, i) => Number(digit) * (i % 2 === 0 ? 2 : 1))
    .reduce((total, product) => total + Math.floor(product / 10) + (product % 10), 0);
  return String((10 - (sum % 10)) % 10);
}
function mod11(digits: string): string {
  const sum = [...digits].reverse().reduce((total, digit, i) => total + Number(digit) * (2 + (i % 8)), 0);
  const digit = 11 - (sum % 11);
  return digit >= 10 ? "1" : String(digit);
}
/** The digitable line of a 43-digit barcode body (bank, currency, factor, amount, free field), every DV computed. */
function lineOf(body: string): string {
  const barcode = body.slice(0, 4) + mod11(body) + body.slice(4);
  const fields = [barcode.slice(0, 4) + barcode.slice(19, 24), barcode.slice(24, 34), barcode.slice(34, 44)];
  return fields.map((field) => field + mod10(field)).join("") + barcode.slice(4, 19);
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const referenceDay = Math.floor(REFERENCE.getTime() / DAY_MS);
// Due dates FEBRABAN's window reads back unambiguously from REFERENCE: 3000 days before to 5500 after.
const dueDate = fc.integer({ min: referenceDay - 3000, max: referenceDay + 5500 }).map(isoDay);
const boleto: fc.Arbitrary<BoletoFields> = fc.record({
  bankCode: fc.stringMatching(/^\d{3}$/),
  amountCents: fc.integer({ min: 1, max: 99_999_999_99 }),
  dueDate,
  freeField: fc.stringMatching(/^\d{25}$/),
});

describe("boletoDueDateFactor: the FEBRABAN due-date factor, with the 2025 reset", () => {
  it.each([
    ["2000-07-03", "1000", "the first factor in use"],
    ["2000-07-04", "1001", "one day later"],
    ["2018-07-15", "7586", "a date of the first cycle"],
    ["2025-02-21", "9999", "the last day of the first cycle"],
    ["2025-02-22", "1000", "the reset"],
    ["2025-02-23", "1001", "one day after the reset"],
    ["2026-05-15", "1447", "a date of the second cycle"],
    ["2049-10-13", "9999", "the last day of the second cycle"],
    ["2049-10-14", "1000", "the next reset"],
  ])("gives %s the factor %s (%s)", (date, factor) => {
    expect(boletoDueDateFactor(date)).toBe(factor);
  });

  it("reads a Date by its UTC calendar day", () => {
    expect(boletoDueDateFactor(new Date("2025-02-22T00:00:00Z"))).toBe("1000");
    expect(boletoDueDateFactor(new Date("2025-02-22T23:59:59Z"))).toBe("1000");
    expect(boletoDueDateFactor(new Date("2025-02-21T23:59:59Z"))).toBe("9999");
  });

  it.each([
    ["2000-07-02", "before factor 1000"],
    ["1997-10-07", "the base date itself"],
    ["2025-02-30", "a day that does not exist"],
    ["2025-2-3", "no zero padding"],
    ["22/02/2025", "a Brazilian-format date"],
    ["2025-02-22T00:00:00Z", "a date-time"],
    ["", "empty"],
  ])("refuses %j (%s)", (date) => {
    expect(() => boletoDueDateFactor(date)).toThrow(
      expect.objectContaining({ name: "BoletoError", field: "dueDate" }),
    );
  });

  it("refuses an invalid Date", () => {
    expect(() => boletoDueDateFactor(new Date("nope"))).toThrow(
      expect.objectContaining({ name: "BoletoError" }),
    );
  });
});

describe("boletoDueDateFromFactor: the due date a factor stands for, near the reading day", () => {
  it.each([
    ["1000", "2025-02-20", "2025-02-22", "a reset factor read just before the reset"],
    ["9999", "2025-02-20", "2025-02-21", "the last factor of the first cycle"],
    ["1000", "2010-01-01", "2000-07-03", "factor 1000 read in the first cycle"],
    ["7586", "2025-06-15", "2018-07-15", "an overdue slip of the first cycle (2500 days late)"],
    ["1447", "2026-05-15", "2026-05-15", "a slip due today"],
    ["9999", "2040-01-01", "2049-10-13", "a slip due within 5500 days"],
    ["4000", "2035-01-01", "2033-05-11", "600 days overdue rather than 9600"],
  ])("reads factor %s on %s as %s (%s)", (factor, reference, date) => {
    expect(boletoDueDateFromFactor(factor, new Date(`${reference}T12:00:00Z`))).toBe(date);
  });

  it("is the inverse of boletoDueDateFactor within 3000 days before and 5500 days after the reading day", () => {
    fc.assert(
      fc.property(dueDate, (date) => boletoDueDateFromFactor(boletoDueDateFactor(date), REFERENCE) === date),
    );
  });

  it("places a factor in the gap between windows on the nearer of its two dates", () => {
    // The window covers 8501 of the cycle's 9000 days; 5501 days ahead is also 3499 days overdue.
    expect(boletoDueDateFromFactor(boletoDueDateFactor(isoDay(referenceDay + 5501)), REFERENCE)).toBe(
      isoDay(referenceDay - 3499),
    );
    expect(boletoDueDateFromFactor(boletoDueDateFactor(isoDay(referenceDay - 3001)), REFERENCE)).toBe(
      isoDay(referenceDay - 3001),
    );
  });

  it("agrees with the library on every factor from 1000 to 9999", () => {
    for (let factor = 1000; factor <= 9999; factor++) {
      const date = boletoDueDateFromFactor(String(factor), REFERENCE);
      const [year, month, day] = date.split("-").map(Number) as [number, number, number];
      const line = lineOf(`0019${factor}0000010000${BASE.freeField}`);
      const info = getBoletoInfo(line, { referenceDate: new Date(2026, 4, 15) });
      expect(info?.expirationDate, `factor ${factor}`).toEqual(new Date(year, month - 1, day));
    }
  });

  it.each([["0000"], ["0999"], ["999"], ["10000"], ["1e03"], [""]])("refuses factor %j", (factor) => {
    expect(() => boletoDueDateFromFactor(factor)).toThrow(expect.objectContaining({ name: "BoletoError" }));
  });
});

describe("buildBoletoBarcode / buildBoletoLine: the FEBRABAN barcode and digitable line", () => {
  it("lays the barcode out as bank, currency 9, general DV, factor, amount, free field", () => {
    const barcode = buildBoletoBarcode(BASE);
    expect(barcode).toHaveLength(44);
    expect(barcode.slice(0, 4)).toBe("0019");
    expect(barcode.slice(5, 9)).toBe(boletoDueDateFactor("2026-05-18"));
    expect(barcode.slice(9, 19)).toBe("0000010000");
    expect(barcode.slice(19)).toBe(BASE.freeField);
    expect(barcode[4]).toBe(mod11(barcode.slice(0, 4) + barcode.slice(5)));
  });

  it("lays the line out as three fields with mod-10 DVs, the general DV, factor and amount", () => {
    const line = buildBoletoLine(BASE);
    const barcode = buildBoletoBarcode(BASE);
    expect(line).toBe(
      `001912345${mod10("001912345")}` +
        `6789012345${mod10("6789012345")}` +
        `6789012345${mod10("6789012345")}` +
        `${barcode[4]}` +
        `14500000010000`,
    );
  });

  it("matches the library's known line", () => {
    const known = "00190000090114971860168524522114675860000102656";
    const line = buildBoletoLine({
      bankCode: "001",
      amountCents: 102656,
      dueDate: "2018-07-15",
      freeField: "0000001149718606852452211",
    });
    expect(line).toBe(known);
  });

  it.each([
    ["bankCode", { bankCode: "01" }, "2 digits"],
    ["bankCode", { bankCode: "0011" }, "4 digits"],
    ["bankCode", { bankCode: "0a1" }, "a letter"],
    ["amountCents", { amountCents: 0 }, "zero"],
    ["amountCents", { amountCents: -1 }, "negative"],
    ["amountCents", { amountCents: 10.5 }, "a fraction of a cent"],
    ["amountCents", { amountCents: 10_000_000_000 }, "more than the 10 digits the line holds"],
    ["amountCents", { amountCents: Number.NaN }, "NaN"],
    ["dueDate", { dueDate: "2000-07-02" }, "before 2000-07-03"],
    ["dueDate", { dueDate: "2026-13-01" }, "month 13"],
    ["dueDate", { dueDate: new Date(Number.NaN) }, "an invalid Date"],
    ["freeField", { freeField: "1".repeat(24) }, "24 digits"],
    ["freeField", { freeField: "1".repeat(26) }, "26 digits"],
    ["freeField", { freeField: `${"1".repeat(24)}x` }, "a letter"],
  ] as const)("refuses %s: %o (%s)", (field, change, _reason) => {
    const fields = { ...BASE, ...change };
    const error = expect.objectContaining({
      name: "BoletoError",
      field,
      message: expect.stringContaining(field),
    });
    expect(() => buildBoletoLine(fields)).toThrow(error);
    expect(() => buildBoletoBarcode(fields)).toThrow(error);
  });

  it("takes a Date due date by its UTC day, the same as the YYYY-MM-DD string", () => {
    expect(buildBoletoLine({ ...BASE, dueDate: new Date("2026-05-18T23:30:00Z") })).toBe(
      buildBoletoLine(BASE),
    );
  });

  it("writes lines the library validates and reads the same way", () => {
    fc.assert(
      fc.property(boleto, (fields) => {
        const line = buildBoletoLine(fields);
        expect(isValidBoleto(line)).toBe(true);
        // The library reads its reference and answers its date in local time.
        const [year, month, day] = (fields.dueDate as string).split("-").map(Number) as [
          number,
          number,
          number,
        ];
        const info = getBoletoInfo(line, { referenceDate: new Date(2026, 4, 15) });
        expect(info).toMatchObject({ amount: fields.amountCents, bankCode: fields.bankCode });
        expect(info?.expirationDate).toEqual(new Date(year, month - 1, day));
      }),
    );
  });
});

describe("parseBoletoLine: reads a 47-digit line back after checking every check digit", () => {
  it("reads the library's known line", () => {
    expect(
      parseBoletoLine("00190000090114971860168524522114675860000102656", new Date("2025-06-15T00:00:00Z")),
    ).toEqual({
      bankCode: "001",
      currencyCode: "9",
      amountCents: 102656,
      dueDate: "2018-07-15",
      freeField: "0000001149718606852452211",
      barcode: "00196758600001026560000001149718606852452211",
    });
  });

  it("gives back exactly the fields it was built from, and the barcode", () => {
    fc.assert(
      fc.property(boleto, (fields) => {
        expect(parseBoletoLine(buildBoletoLine(fields), REFERENCE)).toEqual({
          ...fields,
          currencyCode: "9",
          barcode: buildBoletoBarcode(fields),
        });
      }),
    );
  });

  it("reads against today by default (a payin's boleto is due in 3 days)", () => {
    const due = new Date(Date.now() + 3 * DAY_MS).toISOString().slice(0, 10);
    expect(parseBoletoLine(buildBoletoLine({ ...BASE, dueDate: due })).dueDate).toBe(due);
  });

  const line = buildBoletoLine(BASE);
  const flip = (at: number) => line.slice(0, at) + String((Number(line[at]) + 1) % 10) + line.slice(at + 1);
  it.each([
    ["field1", 0, "a digit of field 1 (bank code)"],
    ["field1", 3, "the currency digit"],
    ["field1", 9, "field 1's check digit"],
    ["field2", 10, "a digit of field 2"],
    ["field2", 20, "field 2's check digit"],
    ["field3", 25, "a digit of field 3"],
    ["field3", 31, "field 3's check digit"],
    ["generalCheckDigit", 32, "the general check digit"],
    ["generalCheckDigit", 35, "a digit of the due-date factor"],
    ["generalCheckDigit", 46, "a digit of the amount"],
  ] as const)("names %s when the digit at index %i changes (%s)", (field, at, _what) => {
    expect(() => parseBoletoLine(flip(at))).toThrow(
      expect.objectContaining({
        name: "BoletoError",
        field,
        message: expect.stringContaining("check digit"),
      }),
    );
  });

  it.each([
    ["line", line.slice(0, 46), "46 digits"],
    ["line", `${line}0`, "48 digits"],
    ["line", `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10)}`, "dots and spaces"],
    ["line", ` ${line}`, "leading whitespace"],
    ["line", `${line.slice(0, 46)}x`, "a letter"],
    ["line", "", "empty"],
    [
      "currencyCode",
      lineOf(`0010${"1447"}${"0000010000"}${BASE.freeField}`),
      "currency 0 instead of 9 (BRL)",
    ],
    ["dueDate", lineOf(`0019${"0000"}${"0000010000"}${BASE.freeField}`), "factor 0000 (no due date)"],
  ] as const)("refuses %s: %s (%s)", (field, value, _reason) => {
    expect(() => parseBoletoLine(value)).toThrow(expect.objectContaining({ name: "BoletoError", field }));
    expect(isValidBoletoLine(value)).toBe(false);
  });

  // Every field DV is módulo 10, which catches any single changed digit. The general DV is módulo
  // 11 with remainders 0, 1 and 10 all written as 1, so when it is 1 a changed digit of the factor or
  // the amount (covered by no other DV) can go unnoticed: a limit of the FEBRABAN layout.
  it("catches any single changed digit, except in the factor and amount when the general DV is 1", () => {
    fc.assert(
      fc.property(
        boleto,
        fc.integer({ min: 0, max: 46 }),
        fc.integer({ min: 1, max: 9 }),
        (fields, at, by) => {
          const built = buildBoletoLine(fields);
          fc.pre(at < 33 || built[32] !== "1");
          const changed = built.slice(0, at) + String((Number(built[at]) + by) % 10) + built.slice(at + 1);
          expect(() => parseBoletoLine(changed, REFERENCE)).toThrow(
            expect.objectContaining({ name: "BoletoError" }),
          );
          expect(isValidBoletoLine(changed)).toBe(false);
        },
      ),
    );
  });

  it("cannot catch every change when the general DV is 1 (factor 1447 → 5447 below)", () => {
    expect(isValidBoletoLine("00190000090000000000000000000000114470000000003")).toBe(true);
    expect(isValidBoletoLine("00190000090000000000000000000000154470000000003")).toBe(true);
  });

  it("agrees with the library on its random lines, once Paykit's rules (BRL, a due date) hold", () => {
    fc.assert(
      fc.property(fc.nat(), () => {
        const random = generateBoleto();
        expect(isValidBoleto(random)).toBe(true);
        const paykitRules = random[3] === "9" && Number(random.slice(33, 37)) >= 1000;
        expect(isValidBoletoLine(random)).toBe(paykitRules);
        if (paykitRules) {
          const parsed = parseBoletoLine(random);
          const info = getBoletoInfo(random);
          expect(parsed).toMatchObject({ amountCents: info?.amount, bankCode: info?.bankCode });
        }
      }),
    );
  });
});
