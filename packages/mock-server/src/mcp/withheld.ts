// What an agent never sees and never sends: live keys are refused in any tool argument, and no tool
// result carries a secret key, a webhook secret or card data (docs/testing.md, "Coding agents").
// Two layers, because a result may come from anywhere (the mock's answer, an error message, the
// doctor's view of a receiver's answer): fields known to hold secrets are withheld by name, then the
// text shown is scrubbed of anything shaped like a secret and of every card number an agent sent.
import { isValidCardNumber } from "@paykit/contract";
import { ToolError } from "./tool-error.js";

const LIVE_KEY = /(?:pk|sk)_live_/;

/** Refuses a tool's arguments holding a live-looking key anywhere (a value or a field name). */
export function refuseLiveKeys(value: unknown): void {
  const found = (v: unknown): boolean => {
    if (typeof v === "string") return LIVE_KEY.test(v);
    if (Array.isArray(v)) return v.some(found);
    if (v !== null && typeof v === "object")
      return Object.entries(v).some(([key, inner]) => LIVE_KEY.test(key) || found(inner));
    return false;
  };
  if (found(value)) {
    throw new ToolError(
      "LIVE_KEY_REFUSED",
      "a live key (pk_live_/sk_live_) was given: this server drives the Paykit mock only, with test keys (pk_test_/sk_test_)",
    );
  }
}

/** What a withheld field says instead of its value. */
export const WITHHELD = "(withheld: kept by the MCP server, never shown)";

// Fields whose value is a secret wherever they appear: the account's keys and webhook secrets, a card's code.
const SECRET_FIELDS = new Set(["secretKey", "webhookSecret", "previousWebhookSecret", "cvv", "adminToken"]);

/** A value with its secret fields withheld and each card's number cut to its last four digits. */
export function withholdSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withholdSecrets);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_FIELDS.has(key) && inner !== undefined && inner !== null) out[key] = WITHHELD;
    else if (key === "card" && inner !== null && typeof inner === "object" && !Array.isArray(inner))
      out[key] = cardShown(inner as Record<string, unknown>);
    else out[key] = withholdSecrets(inner);
  }
  return out;
}

// A card as shown: its number's last four digits, no code; the rest (holder, expiry) stays.
function cardShown(card: Record<string, unknown>): Record<string, unknown> {
  const { number, ...rest } = withholdSecrets(card) as Record<string, unknown>;
  return typeof number === "string" ? { ...rest, last4: number.slice(-4) } : rest;
}

// Text shaped like a secret: a secret key's or a webhook secret's prefix followed by at least as many
// characters as the mock's shortest (CreateAccountBody: sk_test_ and 8, whsec_ and 16). A bare prefix
// is not a secret: the server's own messages name `pk_test_…:sk_test_…` and `whsec_…` as placeholders,
// which an empty match used to turn into `sk_…(withheld)…`. No boundary before the prefix: in the JSON
// text scrubbed, an escape (`\n`) or any word may sit right before a secret, and withholding a little
// too much is better than showing one (docs/decisions/mcp-account-signing-and-secrets.md).
const SECRET_SHAPES: [RegExp, string][] = [
  [/sk_(?:test|live)_[A-Za-z0-9_]{8,}/g, "sk_…(withheld)"],
  [/whsec_[A-Za-z0-9+/]{16,}={0,2}/g, "whsec_…(withheld)"],
];

// A string that may be a card number: digits, maybe in groups split by spaces or dashes.
const CARD_LIKE = /^\d(?:[ -]?\d)+$/;
const MAX_CARDS = 100_000;

/**
 * The scrubber of one MCP session: remembers every card number an agent sent (any digit string of
 * card length in any argument) so that none is ever shown back, and removes secret-shaped text.
 */
export class Scrubber {
  readonly #cards = new Set<string>();
  readonly #literals = new Set<string>();

  /** Remembers the card numbers among a tool's arguments (13-19 digits passing the Luhn check). */
  rememberCards(value: unknown): void {
    if (typeof value === "string") {
      const digits = value.replace(/[ -]/g, "");
      if (CARD_LIKE.test(value.trim()) && isValidCardNumber(digits)) {
        // Bounded memory, and forgetting one would let it show: past the bound, card data is refused.
        if (this.#cards.size >= MAX_CARDS && !this.#cards.has(digits))
          throw new ToolError(
            "TOO_MANY_CARDS",
            `more than ${MAX_CARDS} card numbers in one session: restart the MCP server`,
          );
        this.#cards.add(digits);
        if (value !== digits) this.#cards.add(value.trim());
      }
    } else if (Array.isArray(value)) {
      for (const inner of value) this.rememberCards(inner);
    } else if (value !== null && typeof value === "object") {
      for (const inner of Object.values(value)) this.rememberCards(inner);
    }
  }

  /** Remembers a secret of this session (a key, a webhook secret, a token) to remove wherever it shows. */
  rememberSecret(secret: string | undefined): void {
    if (secret !== undefined && secret.length >= 8) this.#literals.add(secret);
  }

  /** The text of a result with every remembered secret and card number, and secret-shaped text, removed. */
  scrub(text: string): string {
    let out = text;
    for (const literal of this.#literals) out = out.replaceAll(literal, "(withheld)");
    for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
    for (const card of this.#cards)
      out = out.replaceAll(card, `(card number withheld, last4 ${card.slice(-4)})`);
    return out;
  }
}
