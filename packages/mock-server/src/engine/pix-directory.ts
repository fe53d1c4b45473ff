import { isValidCnpj, isValidCpf, isValidPixKey, type PixKeyType } from "@paykit/contract";
import { ApiError } from "./http.js";

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
}

/**
 * The keys every mock starts with (documented in the README). Keys at `@bank.test` are the magic
 * payout outcomes of DESIGN.md section 3; `notfound@bank.test` is deliberately absent.
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
}

// E-mail and random (EVP) keys are case-insensitive in the DICT; the others are digits.
function normalize(type: PixKeyType, key: string): string {
  return type === "EMAIL" || type === "EVP" ? key.toLowerCase() : key;
}

/**
 * The PIX key directory. A payout's key must be well formed, match its `pixKeyType`, and be present
 * here; a valid key that is absent is `INVALID_PIX_KEY` (DESIGN.md section 2, PIX keys).
 */
export class PixDirectory {
  readonly #entries = new Map<string, PixKeyEntry>();

  constructor() {
    this.reset();
  }

  /** Back to the seed keys. */
  reset(): void {
    this.#entries.clear();
    for (const entry of SEED_PIX_KEYS)
      this.#entries.set(`${entry.type}:${normalize(entry.type, entry.key)}`, entry);
  }

  /** The holder of a key, or undefined when the directory does not know it. */
  lookup(type: PixKeyType, key: string): PixKeyEntry | undefined {
    return this.#entries.get(`${type}:${normalize(type, key)}`);
  }

  /** Every key, in registration order. */
  list(): PixKeyEntry[] {
    return [...this.#entries.values()];
  }

  /** Registers (or replaces) a key. */
  register(params: RegisterPixKeyParams): PixKeyEntry {
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
    this.#entries.set(`${entry.type}:${normalize(entry.type, entry.key)}`, entry);
    return entry;
  }
}
