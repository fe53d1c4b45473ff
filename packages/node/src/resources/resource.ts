import type { ApiCore } from "../core/api-core.js";

/** The base of every resource: holds the request engine its methods hand their endpoints to. */
export abstract class Resource {
  protected readonly core: ApiCore;

  constructor(core: ApiCore) {
    this.core = core;
  }
}
