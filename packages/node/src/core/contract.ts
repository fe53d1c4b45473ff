import type * as Contract from "@paykit/contract";

// The contract's schemas (zod and every wire shape) load on the first request, not at import: a
// process that imports the client and never calls it (a CLI, a cold serverless start) pays nothing for
// them. The key and webhook rules the client needs at construction come from `@paykit/contract/rules`,
// which has no schema.

let loaded: typeof Contract | undefined;
let loading: Promise<typeof Contract> | undefined;

/** The contract module, imported once on first use. */
export function loadContract(): Promise<typeof Contract> {
  loading ??= import("@paykit/contract").then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** The contract module if it is loaded already, so a request after the first one needs no `await`. */
export function contractIfLoaded(): typeof Contract | undefined {
  return loaded;
}

/**
 * The contract module once loaded. Every request loads it before sending, so the code that reads an
 * answer may use it synchronously.
 */
export function loadedContract(): typeof Contract {
  if (loaded === undefined)
    throw new Error("@paykit/node: the contract is read before it was loaded (a bug)");
  return loaded;
}
