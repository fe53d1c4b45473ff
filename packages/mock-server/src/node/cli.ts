import { createEngine } from "../engine/engine.js";
import { parseCliArgs, USAGE } from "./args.js";
import { listen } from "./listen.js";

/**
 * `paykit-mock`: serves the mock payment service over node:http. Prints
 * `Paykit mock listening on http://HOST:PORT`, then the default account's keys and webhook secret; stops gracefully on
 * SIGINT and SIGTERM.
 */
async function main(argv: string[]): Promise<void> {
  let options: ReturnType<typeof parseCliArgs>;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`paykit-mock: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return;
  }
  const engine = createEngine({
    autoAdvance: !options.manual,
    adminToken: options.adminToken,
    strictPixDirectory: options.strictPixDirectory,
    ...(options.maxRecords === undefined ? {} : { maxRecords: options.maxRecords }),
    defaultAccount: {
      ...options.defaultKeys,
      ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
    },
    onError: (error) =>
      process.stderr.write(`paykit-mock: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`),
  });
  const served = await listen(engine, options.port, options.host, options.publicUrl);
  const account = engine.account;
  process.stdout.write(
    `Paykit mock listening on ${served.url}\n` +
      `Default account: ${account.accountId}\n` +
      `  public key: ${account.publicKey}\n` +
      `  secret key: ${account.secretKey}\n` +
      `  webhook secret: ${account.webhookSecret}\n`,
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

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`paykit-mock: ${(error as Error)?.message ?? String(error)}\n`);
  process.exitCode = 1;
});
