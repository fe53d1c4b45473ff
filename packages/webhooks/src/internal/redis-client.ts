// The Redis client shapes the shared stores accept, and how one raw command is sent through either.

/** The part of a node-redis client the stores use. */
export interface NodeRedisClient {
  /** Sends one raw command, e.g. `["SET", key, value]`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** The part of an ioredis client the stores use. */
export interface IoRedisClient {
  /** Sends one raw command, e.g. `call("SET", key, value)`. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Refuses, naming the store, anything that is neither a node-redis nor an ioredis client. */
export function assertRedisClient(client: unknown, store: string): void {
  if (
    client === null ||
    typeof client !== "object" ||
    (typeof (client as { sendCommand?: unknown }).sendCommand !== "function" &&
      typeof (client as { call?: unknown }).call !== "function")
  ) {
    throw new TypeError(`${store}: client must be a node-redis or ioredis client`);
  }
}

/** Sends one raw command through a node-redis or ioredis client. */
export function sendRedisCommand(client: NodeRedisClient | IoRedisClient, args: string[]): Promise<unknown> {
  const either = client as Partial<NodeRedisClient> & Partial<IoRedisClient>;
  // ioredis has both `call` and a lower-level `sendCommand(Command)`; `call` is its raw-command API.
  if (typeof either.call === "function") return either.call(args[0] as string, ...args.slice(1));
  return (either.sendCommand as NodeRedisClient["sendCommand"])(args);
}
