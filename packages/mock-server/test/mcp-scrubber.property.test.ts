// The scrubber of `paykit-mock mcp` (src/mcp/withheld.ts) withholds secrets and card numbers and
// nothing else: the server's own messages, which name `pk_test_…:sk_test_…` and `whsec_…` as
// placeholders, pass unchanged, and a secret anywhere in a text is replaced without touching what
// surrounds it (issue 35, defect 6: `pk_test_…:sk_…(withheld)…`).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrubber } from "../src/mcp/withheld.js";

// Pieces of the server's own messages: placeholders, bare prefixes, words that merely contain a prefix.
const PLACEHOLDERS = [
  "--keys pk_test_…:sk_test_…",
  "pk_test_…:sk_test_…",
  "sk_test_…",
  "sk_live_",
  "whsec_…",
  "whsec_",
  "(whsec_ followed by base64)",
  "sk_test_abc",
  "whsec_short",
  "(withheld)",
  "4111 1111",
  "pi_01J9ZQ7",
];
const plainWord = fc
  .string({ unit: "grapheme", maxLength: 20 })
  .filter((word) => !/sk_|whsec_|\d{4}/.test(word));
const fragment = fc.oneof(fc.constantFrom(...PLACEHOLDERS), plainWord);
/** A text of the server's own, with no secret in it. */
const message = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(" "));
// What may sit right before a secret (a JSON escape's letter too) and right after it (no character
// that could belong to the secret).
const before = fc.constantFrom(" ", ":", '"', "(", "=", "\\n", "\n", "…", "key ");
/** What precedes a secret: more text and a character that cannot end a secret, or the text's start. */
const lead = fc.oneof(fc.tuple(message, before), fc.constant(["", ""] as [string, string]));
const after = fc.constantFrom(" ", ":", '"', ")", ",", "\n", "…", ". ");
/** What follows a secret: a character that cannot belong to it and more text, or the text's end. */
const rest = fc.oneof(fc.tuple(after, message), fc.constant(["", ""] as [string, string]));

const secretKey = fc
  .tuple(fc.constantFrom("test", "live"), fc.stringMatching(/^[A-Za-z0-9_]{8,40}$/))
  .map(([mode, body]) => `sk_${mode}_${body}`);
const webhookSecret = fc.stringMatching(/^[A-Za-z0-9+/]{16,60}={0,2}$/).map((body) => `whsec_${body}`);

describe("the MCP server's scrubber", () => {
  it("leaves a text without secrets unchanged (the server's own messages)", () => {
    fc.assert(
      fc.property(message, (text) => {
        expect(new Scrubber().scrub(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the message that names the keys to give as it was written", () => {
    const text =
      "no account yet: call createAccount first, or start the server with --keys pk_test_…:sk_test_…";
    expect(new Scrubber().scrub(text)).toBe(text);
  });

  it("withholds a secret key or webhook secret anywhere, and only it", () => {
    fc.assert(
      fc.property(
        lead,
        fc.oneof(
          secretKey.map((secret) => [secret, "sk_…(withheld)"] as const),
          webhookSecret.map((secret) => [secret, "whsec_…(withheld)"] as const),
        ),
        rest,
        ([head, left], [secret, shown], [right, tail]) => {
          const scrubbed = new Scrubber().scrub(`${head}${left}${secret}${right}${tail}`);
          expect(scrubbed).not.toContain(secret);
          expect(scrubbed).toBe(`${head}${left}${shown}${right}${tail}`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("withholds a remembered secret and card number wherever they show, and leaves the rest", () => {
    fc.assert(
      fc.property(
        message,
        fc.stringMatching(/^[A-Za-z0-9]{8,30}$/),
        fc.constantFrom("4111111111111111", "4000000000003220", "5555555555554444"),
        message,
        (head, token, card, tail) => {
          const scrubber = new Scrubber();
          const secret = `token-${token}`;
          scrubber.rememberSecret(secret);
          scrubber.rememberCards({ card: { number: card } });
          const scrubbed = scrubber.scrub(`${head} ${secret} ${card} ${tail}`);
          expect(scrubbed).not.toContain(secret);
          expect(scrubbed).not.toContain(card);
          expect(scrubbed).toBe(`${head} (withheld) (card number withheld, last4 ${card.slice(-4)}) ${tail}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
