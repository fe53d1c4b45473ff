import { PayinCreateParams, PayoutCreateParams, PayoutListQuery } from "@paykit/contract";
import * as z from "zod/mini";

// The merchant API's request schemas of @paykit/contract, compiled with zod's own ahead-of-time
// compiler (`z.compile`): a generated fast path checks a valid body in ~1 µs instead of ~7 µs, and
// any input it does not accept falls back to zod's runtime parser, so every error (code, message,
// details) is exactly the contract's. Where `new Function` is not allowed (a CSP page running msw),
// `compile` answers the schema unchanged. Compiled on first use, so importing the engine stays cheap.

function lazily<S extends z.ZodMiniType>(schema: S): () => S {
  let compiled: S | undefined;
  return () => {
    compiled ??= z.compile(schema);
    return compiled;
  };
}

/** The body of POST /payin (the contract's `PayinCreateParams`), compiled. */
export const payinCreateSchema = lazily(PayinCreateParams);
/** The body of POST /payout (the contract's `PayoutCreateParams`), compiled. */
export const payoutCreateSchema = lazily(PayoutCreateParams);
/** The query of GET /payout (the contract's `PayoutListQuery`), compiled. */
export const payoutListSchema = lazily(PayoutListQuery);
