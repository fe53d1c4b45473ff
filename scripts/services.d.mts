import type { ChildProcess } from "node:child_process";

/** A test server started by scripts/services.mjs. */
export interface TestService {
  url: string;
  port: number;
  stop(): Promise<void>;
}
export function freePort(): Promise<number>;
export function hasRedis(): boolean;
export function startRedis(): Promise<TestService>;
export function postgresBin(): string | null;
export function hasPostgres(): boolean;
/** A PostgreSQL cluster made by `initPostgres`: its bin directory, temporary directory, data directory and owner. */
export interface PostgresCluster {
  bin: string;
  dir: string;
  data: string;
  user: { uid?: number; gid?: number };
}
export function initPostgres(prefix?: string): PostgresCluster;
export function spawnPostgres(
  cluster: PostgresCluster,
  port: number,
  settings?: string[],
  timeoutMs?: number,
): Promise<ChildProcess>;
export function startPostgres(): Promise<TestService>;
/** A Verdaccio registry started by `startRegistry`: `token` authenticates a publish. */
export interface TestRegistry extends TestService {
  token: string;
}
export function startRegistry(options: { verdaccio: string }): Promise<TestRegistry>;
