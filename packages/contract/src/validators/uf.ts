/** The 27 two-letter codes of the Brazilian states and the Federal District (UF), accepted in a payer's address. */
export const UF_CODES = [
  "AC",
  "AL",
  "AM",
  "AP",
  "BA",
  "CE",
  "DF",
  "ES",
  "GO",
  "MA",
  "MG",
  "MS",
  "MT",
  "PA",
  "PB",
  "PE",
  "PI",
  "PR",
  "RJ",
  "RN",
  "RO",
  "RR",
  "RS",
  "SC",
  "SE",
  "SP",
  "TO",
] as const;

/** A state code (UF) of a payer's address. */
export type Uf = (typeof UF_CODES)[number];

/** Whether `value` is one of the 27 state codes (UF) a payer's address may carry; uppercase only. */
export function isValidUf(value: string): value is Uf {
  return (UF_CODES as readonly string[]).includes(value);
}
