import { parseArgs } from "node:util";
import { retentionMs } from "../../domain/retention-period.js";
import { parseAllowedHost } from "../../http/host-guard.js";
import { refuseLiveKeys } from "../../scenarios/target.js";

/** A mock account's keys: the mock never has live ones. */
const KEYS = /^pk_test_\w{8,100}$/;
const SECRET = /^sk_test_\w{8,100}$/;

/** The options of the `paykit-mock` command line. */
export interface CliOptions {
  port: number;
  host: string;
  manual: boolean;
  adminToken: string | undefined;
  sharedSandbox: boolean;
  defaultKeys: { publicKey: string; secretKey: string } | undefined;
  webhookSecret: string | undefined;
  strictPixDirectory: boolean;
  publicUrl: string | undefined;
  /** `--allowed-hosts`: more names the control API and pages answer (empty: none). */
  allowedHosts: string[];
  maxRecords: number | undefined;
  /** `--retention`: ms, 0 for off; undefined leaves the default (memory: off; a durable store: 30 days). */
  retention: number | undefined;
  /** `--data-dir` (PGlite) or `--store` (PostgreSQL); memory when absent. */
  store: { dataDir: string } | { url: string } | undefined;
}

/** The subcommands of `paykit-mock`, each with its one-line summary (`paykit-mock <command> --help` has the rest). */
export const COMMANDS = {
  account: "open an account on a mock or a team sandbox, and print the keys a .env needs",
  doctor: "check a webhook receiver with the deliveries a safe endpoint must handle",
  listen: "bring an account's webhooks from a sandbox (a team's shared one too) to a local receiver",
  mcp: "an MCP server over stdio that lets a coding agent drive a mock",
  trigger: "play a scenario (payin.approved, payout.failed, …) on a running mock and show its webhooks",
} as const;

/** The usage text of `paykit-mock --help`. */
export const USAGE = `Usage: paykit-mock [options]          serve the mock payment service
       paykit-mock <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, summary]) => `  ${name.padEnd(22)}  ${summary}\n${" ".repeat(26)}(paykit-mock ${name} --help)`)
  .join("\n")}

Options of the server:
  --port <n>              port to listen on; 0 picks a free one (default 4010)
  --host <address>        address to bind (default 127.0.0.1); any other needs an admin token
  --manual                payouts wait for the control API instead of moving each second
  --admin-token <token>   /_mock control calls need Authorization: Bearer <token>. Prefer the variable
                          PAYKIT_MOCK_ADMIN_TOKEN (read when the option is absent): a command line is
                          shown to every user of the machine by ps
  --shared                a sandbox a team shares (needs an admin token): POST /_mock/accounts is open,
                          an account's own keys (Basic pk:sk) authorize the control calls about that
                          account, and calls about every account need the admin token
  --default-keys <pk:sk>  fix the default account's keys (pk_test_…:sk_test_…); its webhook secret is
                          then derived from them: the same at every start, so a .env stays valid.
                          The secret key you gave is not printed back
  --webhook-secret <s>    fix the default account's webhook signing secret (whsec_…)
  --public-url <url>      the mock's URL as clients reach it (behind a proxy); default: the listening address
  --allowed-hosts <names> more host names, comma-separated, that /_mock (control API, dashboard, pages)
                          answers; .team.example allows every name under it. Always allowed: localhost,
                          *.localhost, IP addresses, --host, and the host of --public-url.
                          Any other Host is 403 FORBIDDEN_HOST (against DNS rebinding: a page on another
                          name that resolves to the mock would read it)
  --max-records <n>       keep at most n payins and n payouts per account, dropping the oldest final (or
                          COMPLETED) ones with their webhook deliveries, from memory and the store alike
  --retention <duration>  remove accounts no request used for that long (30d, 12h, 90m; 0 or off: never),
                          with all they hold; the default account stays. Default: off in memory, 30d
                          with --data-dir or --store (on the database's clock, deleted in batches)
  --data-dir <dir>        keep the state in <dir> (PGlite, embedded PostgreSQL): it survives restarts
  --store <postgres://…>  keep the state in PostgreSQL: a sandbox a team shares, across restarts and
                          any number of mock processes, each serving every request as one transaction
                          (needs an admin token; implies --shared)
  --strict-pix-directory  find only seeded and registered PIX keys (default: every well-formed key
                          except notfound@bank.test is found, with a holder derived from the key)
  --help                  show this text
`;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The environment variable the admin token is read from when `--admin-token` is absent. */
export const ADMIN_TOKEN_VARIABLE = "PAYKIT_MOCK_ADMIN_TOKEN";

// Said wherever an admin token is missing: where to give it, the variable first
// (docs/decisions/admin-token-from-environment.md).
const GIVE_TOKEN = `set ${ADMIN_TOKEN_VARIABLE}=<token> (or add --admin-token <token>, which ps shows to every user of the machine)`;

/**
 * Reads the command line, and the admin token from `PAYKIT_MOCK_ADMIN_TOKEN` of `env` when
 * `--admin-token` is absent; throws an Error whose message is meant for the user.
 */
export function parseCliArgs(
  argv: string[],
  env: Record<string, string | undefined> = {},
): CliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      manual: { type: "boolean" },
      "admin-token": { type: "string" },
      shared: { type: "boolean" },
      "default-keys": { type: "string" },
      "webhook-secret": { type: "string" },
      "strict-pix-directory": { type: "boolean" },
      "public-url": { type: "string" },
      "allowed-hosts": { type: "string" },
      "max-records": { type: "string" },
      retention: { type: "string" },
      "data-dir": { type: "string" },
      store: { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return "help";
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535, got ${values.port}`);
  // `[::1]` is how an IPv6 address is written in a URL; the socket wants it bare.
  const host = (values.host ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
  const fromEnv = values["admin-token"] === undefined;
  // an empty variable is none (`PAYKIT_MOCK_ADMIN_TOKEN= paykit-mock` unsets it in a shell)
  const adminToken = values["admin-token"] ?? (env[ADMIN_TOKEN_VARIABLE] || undefined);
  const tokenFrom = fromEnv ? ADMIN_TOKEN_VARIABLE : "--admin-token";
  if (adminToken !== undefined && adminToken.trim() !== adminToken)
    throw new Error(`${tokenFrom} must not start or end with whitespace (a stray newline from a file?)`);
  if (adminToken !== undefined && adminToken.length < 8)
    throw new Error(`${tokenFrom} must have at least 8 characters`);
  if (!LOOPBACK.has(host) && adminToken === undefined) {
    throw new Error(`binding ${host} exposes the control API beyond this machine: ${GIVE_TOKEN}`);
  }
  const store = storeOf(values["data-dir"], values.store);
  if (store !== undefined && "url" in store && adminToken === undefined) {
    throw new Error(
      `--store postgres://… is a sandbox a team shares: someone must be able to make the calls about every account: ${GIVE_TOKEN}`,
    );
  }
  const sharedSandbox = values.shared ?? (store !== undefined && "url" in store);
  if (sharedSandbox && adminToken === undefined) {
    throw new Error(
      `--shared needs an admin token, so that someone can make the calls about every account: ${GIVE_TOKEN}`,
    );
  }
  let defaultKeys: CliOptions["defaultKeys"];
  if (values["default-keys"] !== undefined) {
    const [publicKey = "", secretKey = "", ...rest] = values["default-keys"].split(":");
    if (rest.length > 0 || !KEYS.test(publicKey) || !SECRET.test(secretKey)) {
      throw new Error("--default-keys must be pk_test_…:sk_test_… (the mock never uses live keys)");
    }
    defaultKeys = { publicKey, secretKey };
  }
  const webhookSecret = values["webhook-secret"];
  if (webhookSecret !== undefined && !/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(webhookSecret)) {
    throw new Error("--webhook-secret must be whsec_ followed by base64 (at least 16 characters)");
  }
  return {
    port,
    host,
    manual: values.manual ?? false,
    adminToken,
    sharedSandbox,
    defaultKeys,
    webhookSecret,
    strictPixDirectory: values["strict-pix-directory"] ?? false,
    publicUrl: publicUrlOf(values["public-url"]),
    allowedHosts: allowedHostsOf(values["allowed-hosts"]),
    maxRecords: maxRecordsOf(values["max-records"]),
    retention: retentionOf(values.retention),
    store,
  };
}

function storeOf(dataDir: string | undefined, url: string | undefined): CliOptions["store"] {
  if (dataDir !== undefined && url !== undefined)
    throw new Error("--data-dir and --store are two places for the state: give one");
  if (dataDir !== undefined) {
    if (dataDir.trim() === "") throw new Error("--data-dir needs a directory");
    return { dataDir };
  }
  if (url === undefined) return undefined;
  if (!/^postgres(ql)?:\/\/[^\s]+$/.test(url))
    throw new Error("--store must be a PostgreSQL URL: postgres://user@host:port/database");
  return { url };
}

function allowedHostsOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw new Error("--allowed-hosts needs host names, comma-separated");
  for (const entry of entries) {
    try {
      parseAllowedHost(entry);
    } catch (error) {
      throw new Error(`--allowed-hosts: ${(error as Error).message}`);
    }
  }
  return entries;
}

function retentionOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return retentionMs(value);
  } catch {
    throw new Error(`--retention must be a duration such as 30d, 12h or 90m, or 0/off, got ${value}`);
  }
}

function maxRecordsOf(value: string | undefined): number | undefined {
  return wholeNumberOf("--max-records", value);
}

function wholeNumberOf(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`${flag} must be a positive whole number, got ${value}`);
  return n;
}

function publicUrlOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : httpUrlOption("--public-url", value, "an absolute http(s) URL");
}

/**
 * An http(s) URL option without credentials, query or fragment, trailing slash dropped; an Error naming
 * `flag` otherwise (`what` says what it must be when it is not a URL at all).
 */
export function httpUrlOption(flag: string, value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${flag} must be ${what}, got ${value}`);
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  )
    throw new Error(`${flag} must be an http(s) URL without credentials, query or fragment`);
  return url.href.replace(/\/$/, "");
}

/** The options of `paykit-mock doctor`. */
export interface DoctorCliOptions {
  url: string;
  secret: string;
  json: boolean;
  stateUrl: string | undefined;
  timeoutMs: number | undefined;
}

/** The usage text of `paykit-mock doctor --help`. */
export const DOCTOR_USAGE = `Usage: paykit-mock doctor --url <receiver url> --secret <whsec_…> [options]

  Sends your webhook receiver the deliveries a safe endpoint must handle and reports each case.

  --url <url>             the receiver's URL
  --secret <whsec_…>      the receiver's signing secret
  --state-url <url>       GET <url>?id=<payout id> answers { "status" }: checks out-of-order handling
  --timeout-ms <n>        how long to wait for each answer (default 10000, the mock's delivery timeout)
  --json                  print { "cases": [...] } as JSON
  --help                  show this text

  Exit status 0 only when every required case passes.
`;

/** Reads `paykit-mock doctor`'s arguments; throws an Error whose message is meant for the user. */
export function parseDoctorArgs(argv: string[]): DoctorCliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      secret: { type: "string" },
      "state-url": { type: "string" },
      "timeout-ms": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return "help";
  if (values.url === undefined) throw new Error("--url is required");
  if (values.secret === undefined) throw new Error("--secret is required");
  let timeoutMs: number | undefined;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new Error(`--timeout-ms must be a positive integer, got ${values["timeout-ms"]}`);
  }
  return {
    url: values.url,
    secret: values.secret,
    json: values.json ?? false,
    stateUrl: values["state-url"],
    timeoutMs,
  };
}

/**
 * `--keys pk:sk`, else the environment's `PAYKIT_PUBLIC_KEY` and `PAYKIT_SECRET_KEY` (undefined when
 * neither is given), for the commands that drive a mock account (`trigger`, `listen`). Live keys are
 * refused (a {@link TriggerRefusedError}) before anything else is said.
 */
export function accountKeysOption(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): { publicKey: string; secretKey: string } | undefined {
  let publicKey: string;
  let secretKey: string;
  let from: string;
  if (flag !== undefined) {
    const colon = flag.indexOf(":");
    publicKey = colon < 0 ? flag : flag.slice(0, colon);
    secretKey = colon < 0 ? "" : flag.slice(colon + 1);
    from = "--keys";
  } else {
    if (!env.PAYKIT_PUBLIC_KEY && !env.PAYKIT_SECRET_KEY) return undefined;
    publicKey = env.PAYKIT_PUBLIC_KEY ?? "";
    secretKey = env.PAYKIT_SECRET_KEY ?? "";
    from = "PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY";
  }
  refuseLiveKeys({ publicKey, secretKey });
  if (!KEYS.test(publicKey) || !SECRET.test(secretKey))
    throw new Error(`${from} must be a mock account's pk_test_… and sk_test_… keys`);
  return { publicKey, secretKey };
}
