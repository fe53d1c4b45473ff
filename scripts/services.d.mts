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
export function startPostgres(): Promise<TestService>;
