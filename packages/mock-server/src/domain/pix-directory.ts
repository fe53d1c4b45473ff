import { isValidCnpj, isValidCpf, isValidPixKey, type PixKeyType } from "@paykit/contract";
import { ApiError } from "./errors.js";
import { MAGIC_PIX_KEYS } from "./magic.js";

/** A key of the PIX key directory (DICT): who holds it and at which bank. */
export interface PixKeyEntry {
  /** The key as registered. */
  key: string;
  /** Its type. */
  type: PixKeyType;
  /** The holder's name, which a payout takes as `beneficiaryName` when none is sent. */
  name: string;
  /** The holder's CPF or CNPJ, which a payout takes as `beneficiaryDocument` when none is sent. */
  document: string;
  /** The holder's bank: its 8-digit ISPB. */
  ispb: string;
  /** The account the key was registered for, which alone finds it; absent: every account finds it. */
  accountId?: string;
}

/**
 * The keys every mock starts with (documented in the README). Keys at `@bank.test` are the magic
 * payout outcomes of docs/decisions/magic-values.md; `notfound@bank.test` is deliberately absent.
 */
export const SEED_PIX_KEYS: readonly PixKeyEntry[] = [
  { key: "12345678909", type: "CPF", name: "João da Silva", document: "12345678909", ispb: "00360305" },
  { key: "39493662292", type: "CPF", name: "Ana Beatriz Souza", document: "39493662292", ispb: "00000000" },
  { key: "11936927764", type: "CPF", name: "Carlos Eduardo Lima", document: "11936927764", ispb: "60701190" },
  {
    key: "13358404005",
    type: "CPF",
    name: "Fernanda Oliveira Costa",
    document: "13358404005",
    ispb: "18236120",
  },
  {
    key: "63457288622653",
    type: "CNPJ",
    name: "Padaria Pão Quente Ltda",
    document: "63457288622653",
    ispb: "60746948",
  },
  {
    key: "23472878243109",
    type: "CNPJ",
    name: "Tech Soluções Comércio Ltda",
    document: "23472878243109",
    ispb: "90400888",
  },
  {
    key: "12ABC34501DE35",
    type: "CNPJ",
    name: "Nova Era Serviços S.A.",
    document: "12ABC34501DE35",
    ispb: "00000000",
  },
  {
    key: "maria.santos@example.com",
    type: "EMAIL",
    name: "Maria Santos",
    document: "46482432344",
    ispb: "18236120",
  },
  {
    key: "payouts@example.com",
    type: "EMAIL",
    name: "Paykit Demo Recebedor",
    document: "26888074714",
    ispb: "60701190",
  },
  {
    key: "pagamentos@lojaexemplo.com.br",
    type: "EMAIL",
    name: "Loja Exemplo Ltda",
    document: "18691362666504",
    ispb: "60746948",
  },
  {
    key: "+5511987654321",
    type: "PHONE",
    name: "Pedro Henrique Alves",
    document: "44080563590",
    ispb: "00360305",
  },
  {
    key: "+5521998765432",
    type: "PHONE",
    name: "Juliana Ferreira",
    document: "24825864295",
    ispb: "90400888",
  },
  {
    key: "37a82ff3-0d9b-457b-9c01-242bd2cdf498",
    type: "EVP",
    name: "Rafael Gomes",
    document: "88488113102",
    ispb: "18236120",
  },
  {
    key: "465fddc0-2911-419d-bcf9-36f8c96e760b",
    type: "EVP",
    name: "Cooperativa Vale Verde",
    document: "23472878243109",
    ispb: "00000000",
  },
  {
    key: "reject@bank.test",
    type: "EMAIL",
    name: "Recebedor Rejeitado",
    document: "39493662292",
    ispb: "00000000",
  },
  {
    key: "refuse@bank.test",
    type: "EMAIL",
    name: "Recebedor Recusado",
    document: "11936927764",
    ispb: "00000000",
  },
  {
    key: "reject-now@bank.test",
    type: "EMAIL",
    name: "Recebedor Rejeitado Na Hora",
    document: "13358404005",
    ispb: "00000000",
  },
];

/** What `POST /_mock/pix-keys` takes to register a key in the directory. */
export interface RegisterPixKeyParams {
  key: string;
  type: PixKeyType;
  /** Holder's name. @default "Recebedor de Teste" */
  name?: string;
  /** Holder's CPF or CNPJ; defaults to the key itself for CPF and CNPJ keys, else to a fixed test CPF. */
  document?: string;
  /** Holder bank's ISPB (8 digits). @default "00000000" */
  ispb?: string;
  /**
   * Registers the key for this account's payouts alone (a test run on a shared sandbox): other
   * accounts do not find it, and the account's reset removes it. @default every account finds it
   */
  accountId?: string;
}

// E-mail and random (EVP) keys are case-insensitive in the DICT; the others are digits.
export function normalizePixKey(type: PixKeyType, key: string): string {
  return type === "EMAIL" || type === "EVP" ? key.toLowerCase() : key;
}

/**
 * How a mock account's PIX directory answers a well-formed key that is neither seeded nor registered:
 * `open` (the default, docs/decisions/magic-values.md) finds it with a holder derived from the key, as a
 * real directory finds a merchant's own test keys; `strict` knows only the seeded and registered keys.
 */
export type PixDirectoryMode = "open" | "strict";

const FIRST_NAMES = [
  "Ana",
  "Bruno",
  "Camila",
  "Diego",
  "Eduarda",
  "Felipe",
  "Gabriela",
  "Henrique",
  "Isabela",
  "João",
  "Larissa",
  "Marcos",
  "Natália",
  "Otávio",
  "Patrícia",
  "Rafael",
  "Sofia",
  "Thiago",
  "Vanessa",
  "Wagner",
];
const LAST_NAMES = [
  "Almeida",
  "Barbosa",
  "Cardoso",
  "Dias",
  "Ferreira",
  "Gomes",
  "Lima",
  "Martins",
  "Nascimento",
  "Oliveira",
  "Pereira",
  "Ribeiro",
  "Rocha",
  "Santos",
  "Silva",
  "Souza",
  "Teixeira",
  "Vieira",
];
// ISPBs of the holders' banks: fictitious but 8 digits, as the DICT answers.
const ISPBS = ["00000000", "00360305", "60701190", "60746948", "90400888", "18236120"];

/** FNV-1a over a string, with a round number mixed in: a stable 32-bit number per (text, round). */
function hash32(text: string, round: number): number {
  let h = (0x811c9dc5 ^ round) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A valid CPF whose nine base digits come from the key: the same key always gives the same CPF. */
function derivedCpf(seed: string): string {
  const digits: number[] = [];
  for (let round = 0; digits.length < 9; round += 1) {
    for (const char of String(hash32(seed, round)).padStart(10, "0").slice(-5)) {
      if (digits.length < 9) digits.push(Number(char));
    }
  }
  // A CPF of nine equal digits is refused by the check (000.000.000-00 and the like).
  if (digits.every((d) => d === digits[0])) digits[8] = ((digits[8] ?? 0) + 1) % 10;
  for (const length of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < length; i += 1) sum += (digits[i] ?? 0) * (length + 1 - i);
    const rest = (sum * 10) % 11;
    digits.push(rest === 10 ? 0 : rest);
  }
  return digits.join("");
}

/**
 * The holder the open directory answers for a key outside the seed list: a CPF or CNPJ key holds its
 * own document; other keys get a valid CPF, a name from a fixed list and an ISPB, all derived from the
 * key, so the same key always gives the same beneficiary.
 */
export function derivedHolder(type: PixKeyType, key: string): PixKeyEntry {
  const seed = `${type}:${normalizePixKey(type, key)}`;
  const first = FIRST_NAMES[hash32(seed, 101) % FIRST_NAMES.length];
  const last = LAST_NAMES[hash32(seed, 102) % LAST_NAMES.length];
  const second = LAST_NAMES[hash32(seed, 103) % LAST_NAMES.length];
  const name = type === "CNPJ" ? `${first} ${last} Comércio Ltda` : `${first} ${second} ${last}`;
  const document = type === "CPF" || type === "CNPJ" ? key.toUpperCase() : derivedCpf(seed);
  return { key, type, name, document, ispb: ISPBS[hash32(seed, 104) % ISPBS.length] ?? "00000000" };
}

/** Finds a key registered at run time: the account's own first, then one every account finds. */
export type RegisteredKeys = (type: PixKeyType, normalizedKey: string) => Promise<PixKeyEntry | null>;

/**
 * The holder of a key as an account's payout finds it in the PIX key directory, or undefined when the
 * directory does not find it. A payout's key must be well formed and match its `pixKeyType` (checked
 * by the contract first); registered keys (the account's own first) and the seeded ones keep their
 * holders, and in the `open` mode every other key is found too except `notfound@bank.test`. A key not
 * found is `INVALID_PIX_KEY` (docs/decisions/pix-keys.md, docs/decisions/magic-values.md).
 */
export async function lookupPixKey(
  type: PixKeyType,
  key: string,
  mode: PixDirectoryMode,
  registered: RegisteredKeys,
): Promise<PixKeyEntry | undefined> {
  const normalized = normalizePixKey(type, key);
  // the stores hold the seeded keys as registered ones (a registration may replace one)
  const known = (await registered(type, normalized)) ?? undefined;
  if (known !== undefined || mode === "strict") return known;
  if (type === "EMAIL" && normalized === MAGIC_PIX_KEYS.notFound) return undefined;
  return derivedHolder(type, key);
}

/** A key to register, checked: `INVALID_PIX_KEY` or `INVALID_DATA` naming the field otherwise. */
export function registeredEntry(params: RegisterPixKeyParams): PixKeyEntry {
  if (!isValidPixKey(params.type, params.key)) {
    throw new ApiError("INVALID_PIX_KEY", `key is not a valid ${params.type} PIX key`, {
      details: [{ path: "key", message: `must be a valid ${params.type} key` }],
    });
  }
  const document =
    params.document ?? (params.type === "CPF" || params.type === "CNPJ" ? params.key : "12345678909");
  if (!isValidCpf(document) && !isValidCnpj(document)) {
    throw new ApiError("INVALID_DATA", "document must be a valid CPF or CNPJ", {
      details: [{ path: "document", message: "must be a valid CPF or CNPJ, digits only" }],
    });
  }
  const entry: PixKeyEntry = {
    key: params.key,
    type: params.type,
    name: params.name ?? "Recebedor de Teste",
    document,
    ispb: params.ispb ?? "00000000",
  };
  if (params.accountId !== undefined) entry.accountId = params.accountId;
  return entry;
}
