// What the attack tests of `paykit-mock listen` (test/listen-attack-*.test.ts) share: a laptop's receiver
// whose answers a test scripts, the listener run in this process or as a real `paykit-mock listen`
// process, a merchant that makes payins and payouts, the wait that moves an account's clock until every
// delivery got through, and the checks of the promises (docs/testing.md, "Your laptop and a team
// sandbox"): none lost, one webhook-id per event, each resource's events in order.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { expect } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import type { MockControl, WebhookDelivery } from "../src/index.js";
import { type ListenedDelivery, type ListenOptions, runListener } from "../src/listen/listener.js";
import { mockCli } from "./cli-bundle.js";
import { basic, payoutBody, pixPayin, ref } from "./fixtures.js";

/** Where a delivery no listener takes goes: a port nothing listens on. */
export const NOWHERE = "http://127.0.0.1:9/webhooks";

type Keys = { publicKey: string; secretKey: string };

/** Things a test started, stopped in `afterEach` newest first even when the test failed. */
export function cleanups() {
  const list: (() => unknown)[] = [];
  return {
    add<T extends () => unknown>(stop: T): T {
      list.push(stop);
      return stop;
    },
    async run(): Promise<void> {
      for (const stop of list.splice(0).reverse()) await Promise.resolve(stop()).catch(() => {});
    },
  };
}

/** One delivery as the laptop's receiver got it, and what it answered. */
export interface Arrival {
  webhookId: string;
  /** The payin or payout id of the event body. */
  id: string;
  status: string;
  /** The status the receiver answered (or was about to, when its answer came too late). */
  answered: number;
  /** How many times this webhook-id had arrived, this one included. */
  nth: number;
}

/** How the receiver answers an arrival: a status, after a delay in ms. */
export type Answer = (arrival: Omit<Arrival, "answered">) => { status: number; delayMs?: number };

/** The developer's receiver on the laptop: records every delivery and answers as `answer` says. */
export async function laptopReceiver(answer: Answer = () => ({ status: 200 })) {
  const arrivals: Arrival[] = [];
  const seen = new Map<string, number>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      // a receiver, not a mock: the listener's check for a mock (GET /_mock/openapi.json) is a 404
      if (req.method !== "POST") return void res.writeHead(404).end();
      const event = JSON.parse(body) as { id: string; status: string };
      const webhookId = String(req.headers["webhook-id"]);
      const nth = (seen.get(webhookId) ?? 0) + 1;
      seen.set(webhookId, nth);
      const base = { webhookId, id: event.id, status: event.status, nth };
      const { status, delayMs = 0 } = answer(base);
      arrivals.push({ ...base, answered: status });
      if (delayMs === 0) return void res.writeHead(status).end();
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) res.writeHead(status).end();
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrivals,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A listener run in this process (`runListener`), with short polls; `stop()` is its Ctrl-C. */
export function inProcessListener(options: Omit<ListenOptions, "signal">) {
  const controller = new AbortController();
  const lines: ListenedDelivery[] = [];
  const connection: string[] = [];
  let attached: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    attached = resolve;
  });
  const done = runListener(
    { waitMs: 1_000, ...options, signal: controller.signal },
    {
      ready: () => attached(),
      delivery: (delivery) => lines.push(delivery),
      connection: (state, detail) => connection.push(`${state} ${detail}`),
    },
  );
  // a listener that stops with an error before it attached: `ready` rejects with that error
  const readyOrFailed = Promise.race([ready, done.then(() => ready)]);
  return {
    ready: readyOrFailed,
    lines,
    connection,
    done,
    stop: async () => {
      controller.abort();
      await done.catch(() => {});
    },
  };
}

/** A real `paykit-mock listen --json` process; resolves once it printed `ready`. */
export async function cliListener(url: string, keys: Keys, forwardTo: string, args: string[] = []) {
  const child = spawnGroup(
    process.execPath,
    [
      await mockCli(),
      "listen",
      "--url",
      url,
      "--keys",
      `${keys.publicKey}:${keys.secretKey}`,
      "--forward-to",
      forwardTo,
      "--json",
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: { type: string; [key: string]: unknown }[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as string | null,
  }));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const parsed = JSON.parse(line) as { type: string };
      lines.push(parsed);
      if (parsed.type === "ready") resolve();
    });
    void exited.then(({ code }) => reject(new Error(`paykit-mock listen exited (${code}): ${stderr}`)));
  });
  await ready.catch(async (error) => {
    killLeft(child);
    throw error;
  });
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    /** kill -9, and wait until it is gone. */
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The merchant side of a test: makes payins and payouts with an account's keys. */
export function merchant(url: string, keys: Keys) {
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: basic(keys), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    payin: () => post("/payin", pixPayin({ webhookUrl: NOWHERE })).then((p) => p.id),
    payout: (webhookUrl = NOWHERE) =>
      post("/payout", payoutBody({ referenceId: ref("attack"), webhookUrl })).then((p) => p.id),
  };
}

/** Every delivery of the account, oldest first. */
export const logOf = (control: MockControl, accountId: string): Promise<WebhookDelivery[]> =>
  control.webhooks(accountId, { limit: 1000 });

/**
 * Moves the account's clock past the next retries and flushes, again and again, until `expected`
 * deliveries are delivered (what failed meanwhile waits for a retry on that clock); answers the log.
 */
export async function settle(
  control: MockControl,
  accountId: string,
  expected: number,
  timeoutMs = 60_000,
): Promise<WebhookDelivery[]> {
  await expect
    .poll(
      async () => {
        await control.setAccountClock(accountId, { advanceMs: 60 * 60_000 });
        await control.flushWebhooks(accountId);
        return (await logOf(control, accountId)).filter((d) => d.state === "delivered").length;
      },
      { timeout: timeoutMs, interval: 500 },
    )
    .toBe(expected);
  return logOf(control, accountId);
}

/**
 * Nothing lost, one webhook-id per event: every delivery of the log is delivered, with the laptop's
 * 2xx as its last attempt, and its webhook-id reached the receiver; every arrival is a delivery of the
 * log under the webhook-id of its own event (resource and status).
 */
export function expectNoneLost(log: WebhookDelivery[], arrivals: Arrival[]): void {
  const byWebhookId = new Map(log.map((d) => [d.webhookId, d]));
  expect(byWebhookId.size).toBe(log.length);
  const arrived = new Set(arrivals.map((a) => a.webhookId));
  for (const delivery of log) {
    const label = `${delivery.resourceId} ${delivery.status}`;
    expect(delivery.state, label).toBe("delivered");
    const last = delivery.attempts.at(-1)?.statusCode ?? 0;
    expect(last >= 200 && last < 300, `${label}: last attempt ${last}`).toBe(true);
    expect(arrived.has(delivery.webhookId), `${label} reached the receiver`).toBe(true);
  }
  for (const arrival of arrivals) {
    const delivery = byWebhookId.get(arrival.webhookId);
    expect(delivery && [delivery.resourceId, delivery.status], arrival.webhookId).toEqual([
      arrival.id,
      arrival.status,
    ]);
  }
}

/**
 * Order per resource: for each resource, no event arrives before the receiver accepted (2xx) the one
 * before it, and the first arrivals of its statuses follow `statuses`.
 */
export function expectInOrder(arrivals: Arrival[], resourceId: string, statuses: string[]): void {
  const own = arrivals.filter((a) => a.id === resourceId);
  const firsts: string[] = [];
  for (const a of own) if (!firsts.includes(a.status)) firsts.push(a.status);
  expect(firsts, resourceId).toEqual(statuses);
  for (let i = 1; i < statuses.length; i++) {
    const firstLater = own.findIndex((a) => a.status === statuses[i]);
    const accepted = own.findIndex((a) => a.status === statuses[i - 1] && a.answered < 300);
    expect(accepted, `${resourceId}: ${statuses[i - 1]} accepted before ${statuses[i]} arrived`).toBeLessThan(
      firstLater,
    );
    expect(accepted).toBeGreaterThanOrEqual(0);
  }
}

/** Waits until `check` answers true (polled every 100 ms), or throws past `timeoutMs`; works in hooks too. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not so after ${timeoutMs} ms: ${check}`);
    await sleep(100);
  }
}

/** Waits `ms` of real time. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A small seeded random source (mulberry32): the chaos is the same at every run of a seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Stops a child process group left running (kill -9). */
export function killLeft(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
