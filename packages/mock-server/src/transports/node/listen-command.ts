import { parseArgs } from "node:util";
import { LISTEN_EVENT } from "../../domain/listeners.js";
import {
  type ListenedDelivery,
  type ListenOptions,
  ListenStoppedError,
  runListener,
} from "../../listen/listener.js";
import { DEFAULT_MOCK_URL } from "../../scenarios/run.js";
import { TriggerRefusedError } from "../../scenarios/target.js";
import { accountKeysOption, httpUrlOption } from "./args.js";

/** What `paykit-mock listen` was asked to do. */
export interface ListenCliOptions {
  listen: ListenOptions;
  json: boolean;
  printSecret: boolean;
}

/** The usage text of `paykit-mock listen --help`. */
export const LISTEN_USAGE = `Usage: paykit-mock listen --forward-to <url> [options]

  Brings an account's webhook deliveries from a sandbox (a shared one on a team server, or a local mock)
  to a receiver on this machine: each delivery is posted to --forward-to with the very headers and
  signature the sandbox sends, and the receiver's answer is recorded in the sandbox's delivery log as
  that attempt (retries, flush and the dashboard show it). One line per delivery.

  --forward-to <url>      your local receiver, for example http://localhost:3000/webhooks
  --url <url>             the sandbox (default ${DEFAULT_MOCK_URL}); refused unless it is a Paykit mock
  --keys <pk:sk>          the account whose deliveries to take (default: PAYKIT_PUBLIC_KEY and
                          PAYKIT_SECRET_KEY); live keys are refused
  --admin-token <token>   the admin token of a mock that has one and is not --shared (there the
                          account's own keys authorize it); give it as PAYKIT_MOCK_ADMIN_TOKEN instead
                          (ps shows a command line to every user of the machine)
  --events <list>         only these events, comma-separated: payin.approved, payout.* (the others go to
                          their webhookUrl as without a listener)
  --print-secret          print the account's webhook signing secret first, for your receiver's .env
  --json                  one JSON document per line instead of text
  --help                  show this text

  While it runs, the account's deliveries come here, and what waited for a retry is sent at once; a
  delivery whose local receiver is down is retried on the sandbox's schedule, with the same webhook-id.
  One listener per account: a second one takes over and the first stops (exit status 1). Stops on
  Ctrl-C (exit status 0); exit status 2 when refused at start.
`;

/**
 * Reads `paykit-mock listen`'s arguments and environment (`PAYKIT_PUBLIC_KEY`, `PAYKIT_SECRET_KEY`,
 * `PAYKIT_MOCK_ADMIN_TOKEN`); throws an Error whose message is meant for the user.
 */
export function parseListenArgs(
  argv: string[],
  env: Record<string, string | undefined> = {},
): ListenCliOptions | "help" {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      "forward-to": { type: "string" },
      url: { type: "string" },
      keys: { type: "string" },
      "admin-token": { type: "string" },
      events: { type: "string" },
      "print-secret": { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return "help";
  if (positionals.length > 0) throw new Error(`listen takes no argument, got ${positionals.join(" ")}`);
  const forwardTo = values["forward-to"];
  if (forwardTo === undefined) throw new Error("--forward-to <url> names your local receiver");
  const keys = accountKeysOption(values.keys, env);
  if (keys === undefined)
    throw new Error(
      "give the account's keys: --keys pk_test_…:sk_test_…, or PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY",
    );
  const events = values.events
    ?.split(",")
    .map((event) => event.trim())
    .filter(Boolean);
  for (const event of events ?? [])
    if (!LISTEN_EVENT.test(event))
      throw new Error(`--events: ${event} is not an event such as payin.approved or payout.*`);
  const adminToken = values["admin-token"] ?? env.PAYKIT_MOCK_ADMIN_TOKEN;
  return {
    json: values.json ?? false,
    printSecret: values["print-secret"] ?? false,
    listen: {
      url: httpUrlOption("--url", values.url ?? DEFAULT_MOCK_URL, "the sandbox's http(s) URL"),
      keys,
      forwardTo: forwardUrl(forwardTo),
      ...(adminToken ? { adminToken } : {}),
      ...(events && events.length > 0 ? { events } : {}),
    },
  };
}

// The receiver's URL may carry a query (a path is usual); only http(s).
function forwardUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--forward-to must be your receiver's absolute http(s) URL, got ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`--forward-to must be an http(s) URL, got ${value}`);
  return url.href;
}

/** One line of the listener's output: time, event, resource, local answer, latency. */
export function formatDelivery(delivery: ListenedDelivery): string {
  const time = delivery.at.slice(11, 23);
  const answer =
    delivery.statusCode !== null ? `<- ${delivery.statusCode}` : `<- no answer (${delivery.error})`;
  return `${time}  ${delivery.event.padEnd(26)}  ${delivery.resourceId}  ${answer}  ${delivery.latencyMs} ms  [${delivery.webhookId}]`;
}

/** `paykit-mock listen`: forwards an account's deliveries until Ctrl-C. */
export async function listenCommand(argv: string[]): Promise<void> {
  let options: ListenCliOptions | "help";
  try {
    options = parseListenArgs(argv, process.env);
  } catch (error) {
    const refused = error instanceof TriggerRefusedError;
    process.stderr.write(
      `paykit-mock listen: ${(error as Error).message}\n${refused ? "" : `\n${LISTEN_USAGE}`}`,
    );
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(LISTEN_USAGE);
    return;
  }
  const { json, listen } = options;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await runListener(
      { ...listen, signal: stop.signal, withSecret: options.printSecret },
      {
        ready({ accountId, webhookSecret }) {
          if (json) {
            out(
              JSON.stringify({
                type: "ready",
                accountId,
                forwardTo: listen.forwardTo,
                ...(webhookSecret === undefined ? {} : { webhookSecret }),
              }),
            );
            return;
          }
          if (webhookSecret !== undefined)
            out(
              webhookSecret === null
                ? "Webhook secret: none (this account's deliveries are unsigned)"
                : `Webhook secret: ${webhookSecret}`,
            );
          const only = listen.events ? ` (only ${listen.events.join(", ")})` : "";
          out(`Ready: account ${accountId}'s deliveries${only} go to ${listen.forwardTo} (Ctrl-C to stop)`);
        },
        delivery(delivery) {
          out(json ? JSON.stringify({ type: "delivery", ...delivery }) : formatDelivery(delivery));
        },
        connection(state, detail) {
          if (json) out(JSON.stringify({ type: "connection", state, detail }));
          else
            out(
              state === "lost"
                ? `Lost the sandbox (${detail}); trying again, nothing is lost meanwhile`
                : `Back on ${detail}`,
            );
        },
      },
    );
  } catch (error) {
    if (error instanceof TriggerRefusedError) {
      process.stderr.write(`paykit-mock listen: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof ListenStoppedError) {
      process.stderr.write(`paykit-mock listen: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
