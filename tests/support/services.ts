// The run's shared Redis and PostgreSQL servers, for projects whose vitest config lists
// tests/support/services.global.ts in globalSetup: the first file that asks starts the server, every
// later file of the run gets the same one (make your own database or key prefix on it).
import { fileURLToPath } from "node:url";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where {@link sharedPostgresUrl} and {@link sharedRedisUrl} ask (services.global.ts serves it). */
    testServices: string;
  }
}

/** A server (or a made directory) the run shares between its test files. */
export type SharedServiceName = "postgres" | "redis" | "pglite-template";

// What this test process was answered already: a service's URL never changes during a run.
const answered = new Map<SharedServiceName, string>();

async function shared(name: SharedServiceName): Promise<string> {
  const known = answered.get(name);
  if (known !== undefined) return known;
  const broker = inject("testServices");
  if (broker === undefined) {
    throw new Error(
      "no shared test services: add tests/support/services.global.ts to this project's globalSetup",
    );
  }
  const res = await fetch(`${broker}/${name}`);
  if (!res.ok) throw new Error(`the shared ${name} did not start: ${await res.text()}`);
  const { url } = (await res.json()) as { url: string };
  answered.set(name, url);
  return url;
}

/** The URL of the run's PostgreSQL server (superuser `postgres`, database `postgres`), started on first use. */
export function sharedPostgresUrl(): Promise<string> {
  return shared("postgres");
}

/** The URL of the run's Redis server, started on first use. */
export function sharedRedisUrl(): Promise<string> {
  return shared("redis");
}

/**
 * An empty PGlite data directory made by initdb once for the run (tests/support/pglite-template.ts), to
 * copy, never to open: a file that gets a copy opens it instead of running initdb again.
 */
export async function sharedPgliteTemplate(): Promise<string> {
  return fileURLToPath(await shared("pglite-template"));
}
