// `paykit-mock account create`: opens an account on a running mock (the one on the laptop, or a team's
// shared sandbox) through the control API and prints what an app's .env needs, the way `stripe login`
// hands out keys: the one command between "a sandbox exists" and "my app talks to it, its webhooks
// signed". The secret key is shown here once; the mock never shows it again.
import { parseArgs } from "node:util";
import { createHttpControl } from "../../control/http-client.js";
import { MockControlError } from "../../control/mock-control.js";
import { type AccountKeys, newWebhookSecret } from "../../domain/accounts.js";
import { MAX_OPENING_BALANCE_CENTS } from "../../domain/control-params.js";
import { DEFAULT_MOCK_URL } from "../../scenarios/run.js";
import { assertMock, TriggerRefusedError } from "../../scenarios/target.js";
import { ADMIN_TOKEN_VARIABLE, httpUrlOption } from "./args.js";

/** The opening balance of an account `account create` opens, in cents, unless `--balance` says: R$ 10.000,00. */
export const DEFAULT_NEW_ACCOUNT_BALANCE = 1_000_000;

/** What `paykit-mock account create` was asked to do. */
export interface AccountCreateOptions {
  url: string;
  adminToken: string | undefined;
  /** `--env`: only the lines of a .env. */
  env: boolean;
  balance: number;
  /** The webhook secret to sign with; null for an account whose deliveries are unsigned (`--unsigned`). */
  webhookSecret: string | null;
}

/** The usage text of `paykit-mock account --help`. */
export const ACCOUNT_USAGE = `Usage: paykit-mock account create [--url <mock url>] [--env] [options]

  Opens an account on a running mock, the one on your laptop or a team's shared sandbox
  (POST /_mock/accounts), and prints what your app's .env needs: PAYKIT_BASE_URL, PAYKIT_PUBLIC_KEY,
  PAYKIT_SECRET_KEY and PAYKIT_WEBHOOK_SECRET. Its deliveries are signed with a new webhook secret
  unless told otherwise. The secret key is shown this once.

  --url <url>             the mock (default ${DEFAULT_MOCK_URL}); refused unless it is a Paykit mock
  --env                   print only the .env lines (paykit-mock account create --env >> .env)
  --balance <cents>       the opening balance in cents (default ${DEFAULT_NEW_ACCOUNT_BALANCE}, R$ 10.000,00)
  --webhook-secret <s>    sign with this whsec_… secret (your receiver's) instead of a new one
  --unsigned              no webhook secret: deliveries go unsigned (a receiver that verifies refuses them)
  --admin-token <token>   a mock guarded by an admin token and not --shared needs it to open an account;
                          give it as ${ADMIN_TOKEN_VARIABLE} rather than here (ps shows a command line
                          to every user of the machine). A shared sandbox opens accounts without it
  --help                  show this text

  Exit status 0 with the account opened, 2 when refused (not a mock, a token needed, a bad option).
`;

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

/**
 * Reads `paykit-mock account create`'s arguments and environment (`PAYKIT_MOCK_ADMIN_TOKEN`); throws
 * an Error whose message is meant for the user.
 */
export function parseAccountArgs(
  argv: string[],
  env: Record<string, string | undefined> = {},
): AccountCreateOptions | "help" {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      env: { type: "boolean" },
      balance: { type: "string" },
      "webhook-secret": { type: "string" },
      unsigned: { type: "boolean" },
      "admin-token": { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help || positionals.length === 0) return "help";
  if (positionals[0] !== "create" || positionals.length > 1)
    throw new Error(`account takes one action, create; got ${positionals.join(" ")}`);
  if (values.unsigned && values["webhook-secret"] !== undefined)
    throw new Error("--unsigned and --webhook-secret contradict each other: give one");
  const given = values["webhook-secret"];
  if (given !== undefined && !WEBHOOK_SECRET.test(given))
    throw new Error("--webhook-secret must be whsec_ followed by base64 (at least 16 characters)");
  const balanceText = values.balance;
  const balance = balanceText === undefined ? DEFAULT_NEW_ACCOUNT_BALANCE : Number(balanceText);
  if (
    balanceText !== undefined &&
    (!/^\d+$/.test(balanceText) || !Number.isSafeInteger(balance) || balance > MAX_OPENING_BALANCE_CENTS)
  )
    throw new Error(
      `--balance must be a whole number of cents from 0 to ${MAX_OPENING_BALANCE_CENTS} (14990 = R$ 149,90), got ${balanceText}`,
    );
  return {
    url: httpUrlOption("--url", values.url ?? DEFAULT_MOCK_URL, "the mock's http(s) URL"),
    adminToken: values["admin-token"] ?? (env[ADMIN_TOKEN_VARIABLE] || undefined),
    env: values.env ?? false,
    balance,
    webhookSecret: values.unsigned ? null : (given ?? newWebhookSecret()),
  };
}

/** Opens the account; a refusal of the mock or of the URL is a {@link TriggerRefusedError} saying what to change. */
export async function openAccount(
  options: AccountCreateOptions,
  doFetch: typeof fetch = (input, init) => globalThis.fetch(input, init),
): Promise<AccountKeys> {
  await assertMock(options.url, doFetch);
  const control = createHttpControl({
    url: options.url,
    fetch: doFetch,
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
  });
  try {
    return await control.createAccount({
      balance: options.balance,
      ...(options.webhookSecret === null ? {} : { webhookSecret: options.webhookSecret }),
    });
  } catch (error) {
    if (!(error instanceof MockControlError)) throw error;
    const hint =
      error.status === 401
        ? `: this mock has an admin token and is not --shared; set ${ADMIN_TOKEN_VARIABLE} to it`
        : "";
    throw new TriggerRefusedError(
      `the mock at ${options.url} refused to open an account (${error.status} ${error.code}: ${error.message})${hint}`,
    );
  }
}

/** The lines of a .env for the account: the mock's URL, the keys and the webhook secret. */
export function envLines(url: string, account: AccountKeys): string {
  return (
    `# Paykit mock account ${account.accountId} on ${url}\n` +
    `PAYKIT_BASE_URL=${url}\n` +
    `PAYKIT_PUBLIC_KEY=${account.publicKey}\n` +
    `PAYKIT_SECRET_KEY=${account.secretKey}\n` +
    (account.webhookSecret === undefined
      ? "# no webhook secret: this account's deliveries are unsigned\n"
      : `PAYKIT_WEBHOOK_SECRET=${account.webhookSecret}\n`)
  );
}

/** `paykit-mock account create`: opens an account and prints its .env lines; exit 2 when refused. */
export async function accountCommand(argv: string[]): Promise<void> {
  let options: AccountCreateOptions | "help";
  try {
    options = parseAccountArgs(argv, process.env);
  } catch (error) {
    process.stderr.write(`paykit-mock account: ${(error as Error).message}\n\n${ACCOUNT_USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(ACCOUNT_USAGE);
    return;
  }
  let account: AccountKeys;
  try {
    account = await openAccount(options);
  } catch (error) {
    if (!(error instanceof TriggerRefusedError)) throw error;
    process.stderr.write(`paykit-mock account: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  const lines = envLines(options.url, account);
  if (options.env) {
    process.stdout.write(lines);
    return;
  }
  process.stdout.write(
    `Opened account ${account.accountId} on ${options.url}, opening balance ${options.balance} cents` +
      `${account.webhookSecret === undefined ? "; its deliveries are unsigned" : ", its deliveries signed"}.\n` +
      "For your app's .env (the secret key is shown this once; paykit-mock account create --env >> .env writes them):\n\n" +
      lines,
  );
}
