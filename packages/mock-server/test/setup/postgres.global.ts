// One PostgreSQL server (Debian's package, on loopback, a temporary data directory) for every test
// file of the package that runs against the PostgreSQL store; each file makes its own databases on it.
import type { TestProject } from "vitest/node";
import { startPostgres, type TestService } from "../../../../scripts/services.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

let postgres: TestService | undefined;

export async function setup(project: TestProject): Promise<void> {
  postgres = await startPostgres();
  project.provide("postgresUrl", postgres.url);
}

export async function teardown(): Promise<void> {
  await postgres?.stop();
}
