import { formatDoctorReport, runWebhookDoctor } from "../../doctor/doctor.js";
import { retentionMs } from "../../domain/retention-period.js";
import { accountCommand } from "./account-command.js";
import { type COMMANDS, DOCTOR_USAGE, parseCliArgs, parseDoctorArgs, USAGE } from "./args.js";
import { listenCommand } from "./listen-command.js";
import { createMockServer, DURABLE_RETENTION } from "./server.js";
import { trigger } from "./trigger.js";

/**
 * `paykit-mock`: serves the mock payment service over node:http. Prints
 * `Paykit mock listening on http://HOST:PORT`, then the default account's keys (the secret key only when
 * the mock chose it) and webhook secret; stops gracefully on SIGINT and SIGTERM. The admin token comes
 * from `--admin-token` or `PAYKIT_MOCK_ADMIN_TOKEN`.
 */
async function main(argv: string[]): Promise<void> {
  const commands: Record<keyof typeof COMMANDS, (argv: string[]) => Promise<void>> = {
    account: accountCommand,
    doctor,
    listen: listenCommand,
    mcp,
    trigger,
  };
  if (argv[0] !== undefined && Object.hasOwn(commands, argv[0]))
    return commands[argv[0] as keyof typeof COMMANDS](argv.slice(1));
  let options: ReturnType<typeof parseCliArgs>;
  try {
    options = parseCliArgs(argv, process.env);
  } catch (error) {
    process.stderr.write(`paykit-mock: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return;
  }
  let served: Awaited<ReturnType<typeof createMockServer>>;
  try {
    served = await createMockServer({
      port: options.port,
      host: options.host,
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      allowedHosts: options.allowedHosts,
      ...(options.store === undefined ? {} : { store: options.store }),
      autoAdvance: !options.manual,
      adminToken: options.adminToken,
      sharedSandbox: options.sharedSandbox,
      strictPixDirectory: options.strictPixDirectory,
      ...(options.maxRecords === undefined ? {} : { maxRecords: options.maxRecords }),
      ...(options.retention === undefined ? {} : { retention: options.retention }),
      defaultAccount: {
        ...options.defaultKeys,
        ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
      },
      onError: (error) =>
        process.stderr.write(`paykit-mock: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`),
    });
  } catch (error) {
    process.stderr.write(`paykit-mock: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const account = served.account;
  process.stdout.write(
    `Paykit mock listening on ${served.url}\n` +
      `Default account: ${account.accountId}\n` +
      `  public key: ${account.publicKey}\n` +
      // A secret key given on the command line is not printed back: the user has it, and the
      // banner lands in logs that more people read than the one who started the mock.
      `  secret key: ${secretKeyLine(account.secretKey, options.defaultKeys !== undefined)}\n` +
      `  webhook secret: ${account.webhookSecret}\n` +
      `State: ${served.store.kind === "memory" ? "in this process's memory (gone when it stops)" : served.store.description}` +
      (served.store.kind === "postgres"
        ? " (shared: any number of mock processes may serve it, each request one transaction)\n"
        : "\n") +
      retentionLine(options.retention ?? (served.store.kind === "memory" ? undefined : DURABLE_RETENTION)) +
      (options.sharedSandbox
        ? "Shared sandbox: each test run makes its own account (POST /_mock/accounts, no token) and drives it\n" +
          "  with its own keys; calls about every account need the admin token\n"
        : ""),
  );
  const stop = (signal: NodeJS.Signals) => {
    process.stdout.write(`paykit-mock: ${signal}, shutting down\n`);
    served.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** `paykit-mock doctor`: runs the webhook doctor's battery against a receiver; exit 1 when a required case fails. */
async function doctor(argv: string[]): Promise<void> {
  let options: ReturnType<typeof parseDoctorArgs>;
  try {
    options = parseDoctorArgs(argv);
  } catch (error) {
    process.stderr.write(`paykit-mock doctor: ${(error as Error).message}\n\n${DOCTOR_USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(DOCTOR_USAGE);
    return;
  }
  const report = await runWebhookDoctor({
    url: options.url,
    secret: options.secret,
    stateUrl: options.stateUrl,
    timeoutMs: options.timeoutMs,
  });
  process.stdout.write(
    options.json ? `${JSON.stringify({ cases: report.cases }, null, 2)}\n` : formatDoctorReport(report),
  );
  process.exitCode = report.ok ? 0 : 1;
}

/** `paykit-mock mcp`: the MCP server for coding agents (its SDK loads only for this command). */
async function mcp(argv: string[]): Promise<void> {
  const { mcpCommand } = await import("./mcp.js");
  await mcpCommand(argv);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`paykit-mock: ${(error as Error)?.message ?? String(error)}\n`);
  process.exitCode = 1;
});

/** The banner's word on retention: a durable store removes unused accounts unless told otherwise. */
function retentionLine(retention: string | number | undefined): string {
  const ms = retentionMs(retention);
  if (ms === 0) return "";
  // The largest unit that divides it: 30d, 12h, 90m, 45s, else ms.
  const [unit, size] = (
    [
      ["d", 86_400_000],
      ["h", 3_600_000],
      ["m", 60_000],
      ["s", 1_000],
    ] as const
  ).find(([, n]) => ms % n === 0) ?? ["ms", 1];
  return `Retention: accounts unused for ${ms / size}${unit} are removed with their records (--retention off keeps them)\n`;
}

/**
 * The banner's secret key: printed when this start made it; a store keeps only its hash, so a later start
 * says where the key is instead of printing an empty one (docs/decisions/secret-keys-hashed.md).
 */
function secretKeyLine(secretKey: string, given: boolean): string {
  if (given) return "the one given in --default-keys (not printed)";
  if (secretKey !== "") return secretKey;
  return "shown once, by the start that made the account (the store keeps only its hash): use the one you saved, or fix the keys with --default-keys";
}
