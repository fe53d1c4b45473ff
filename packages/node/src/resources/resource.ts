import type { ValidationResult, validate } from "@paykit/contract";
import type { ApiCore } from "../core/api-core.js";
import { loadedContract } from "../core/contract.js";
import { PaykitValidationError } from "../errors/validation-error.js";

/** The part of a zod schema `validate()` needs. */
type RequestSchema = Parameters<typeof validate>[0];

/** The base of every resource: holds the request engine and the request-validation switch. */
export abstract class Resource {
  protected readonly core: ApiCore;
  readonly #validateRequests: boolean;

  constructor(core: ApiCore, validateRequests: boolean) {
    this.core = core;
    this.#validateRequests = validateRequests;
  }

  /**
   * Refuses a request that breaks the contract before anything is sent (DESIGN.md section 5). Call it
   * after `loadContract()`, which gives the schema.
   */
  protected check<T>(schema: RequestSchema, input: T): T {
    if (!this.#validateRequests) return input;
    const result: ValidationResult<unknown> = loadedContract().validate(schema, input);
    if (!result.success) throw new PaykitValidationError(result.code, result.message, result.details);
    return input;
  }
}
