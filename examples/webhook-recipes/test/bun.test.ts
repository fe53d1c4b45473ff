// Hono on Bun: the real Bun (the `bun` npm package's binary) runs src/bun.ts as a merchant would.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe } from "vitest";
import { freePort, smokeTest, waitFor } from "./harness.js";

const folder = fileURLToPath(new URL("..", import.meta.url));
// the binary itself, not node_modules/.bin/bun (a shell wrapper that would outlive a kill)
const bunBin = fileURLToPath(new URL("../node_modules/bun/bin/bun.exe", import.meta.url));

describe("Hono on Bun", () => {
  smokeTest(async (config) => {
    const port = await freePort();
    const child: ChildProcess = spawn(bunBin, ["run", "src/bun.ts"], {
      cwd: folder,
      stdio: "ignore",
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        PAYKIT_PUBLIC_KEY: config.publicKey,
        PAYKIT_SECRET_KEY: config.secretKey,
        PAYKIT_BASE_URL: config.baseUrl,
        PAYKIT_WEBHOOK_SECRET: config.webhookSecret,
      },
    });
    const url = `http://127.0.0.1:${port}`;
    // any HTTP answer means Bun is serving (a GET on the webhook route is a 404)
    await waitFor(async () => (await fetch(url)).status, "Bun to listen", 15_000);
    return {
      url,
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    };
  });
});
