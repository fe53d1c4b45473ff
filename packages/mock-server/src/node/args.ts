import { parseArgs } from "node:util";

/** The options of the `paykit-mock` command line. */
export interface CliOptions {
  port: number;
  host: string;
  manual: boolean;
  adminToken: string | undefined;
  defaultKeys: { publicKey: string; secretKey: string } | undefined;
}

/** The usage text of `paykit-mock --help`. */
export const USAGE = `Usage: paykit-mock [options]

  --port <n>              port to listen on; 0 picks a free one (default 4010)
  --host <address>        address to bind (default 127.0.0.1); any other needs --admin-token
  --manual                payouts wait for the control API instead of moving each second
  --admin-token <token>   /_mock control calls need Authorization: Bearer <token>
  --default-keys <pk:sk>  fix the default account's keys (pk_test_…:sk_test_…)
  --help                  show this text
`;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Reads the command line; throws an Error whose message is meant for the user. */
export function parseCliArgs(argv: string[]): CliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      manual: { type: "boolean" },
      "admin-token": { type: "string" },
      "default-keys": { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return "help";
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535, got ${values.port}`);
  const host = values.host ?? "127.0.0.1";
  const adminToken = values["admin-token"];
  if (adminToken !== undefined && adminToken.length < 8)
    throw new Error("--admin-token must have at least 8 characters");
  if (!LOOPBACK.has(host) && adminToken === undefined) {
    throw new Error(`binding ${host} exposes the control API beyond this machine: add --admin-token <token>`);
  }
  let defaultKeys: CliOptions["defaultKeys"];
  if (values["default-keys"] !== undefined) {
    const [publicKey = "", secretKey = "", ...rest] = values["default-keys"].split(":");
    if (rest.length > 0 || !/^pk_test_\w{8,100}$/.test(publicKey) || !/^sk_test_\w{8,100}$/.test(secretKey)) {
      throw new Error("--default-keys must be pk_test_…:sk_test_… (the mock never uses live keys)");
    }
    defaultKeys = { publicKey, secretKey };
  }
  return { port, host, manual: values.manual ?? false, adminToken, defaultKeys };
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
