// The admin token of a team sandbox stays out of `ps` (issue 35, "Secrets of a team sandbox"): every
// command the docs give takes it from PAYKIT_MOCK_ADMIN_TOKEN, never from the command line, and the
// processes started that way (the server, `listen`, `mcp`; `trigger` and `account create` too) work with
// it while no /proc/<pid>/cmdline, which every user of the machine reads, holds it.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGroup, spawnGroup, stopGroup } from "../../../scripts/processes.mjs";
import { mockCli } from "./cli-bundle.js";
import { localServer, startMcp, stopAll } from "./mcp-harness.js";

const TOKEN = "team-sandbox-admin-token-9f3c";
const ROOT = new URL("../../../", import.meta.url);

/** The environment of a process started as the docs say: the token and keys in variables, nothing else of PAYKIT_*. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("PAYKIT_")) delete env[name];
  return { ...env, ...vars };
}

/** What `ps` shows of a process: its command line. */
function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
}

// Code in the docs: fenced blocks line by line, and the inline code spans of each paragraph (a span may
// run over a line break). A synopsis's optional `[--admin-token T]` names the option without giving a
// token, so it is left out.
function codeOf(markdown: string): string[] {
  const code: string[] = [];
  let fenced = false;
  let paragraph: string[] = [];
  const spans = () => {
    code.push(...[...paragraph.join(" ").matchAll(/`([^`]+)`/g)].map((match) => match[1] as string));
    paragraph = [];
  };
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) {
      spans();
      fenced = !fenced;
    } else if (fenced) code.push(line);
    else if (line.trim() === "") spans();
    else paragraph.push(line);
  }
  spans();
  return code.map((line) => line.replace(/\[[^\]]*\]/g, ""));
}

describe("the admin token of a team sandbox", () => {
  it.each([
    "README.md",
    "llms.txt",
    "docs/testing.md",
    "docs/quick-start.md",
    "docs/webhooks.md",
    "packages/mock-server/README.md",
  ])("%s gives every command the token as PAYKIT_MOCK_ADMIN_TOKEN, never on its command line", (file) => {
    const given = codeOf(readFileSync(new URL(file, ROOT), "utf8")).filter((line) =>
      /--admin-token[ =]+[^\s`]/.test(line),
    );
    expect(given).toEqual([]);
  });

  describe("processes started as the docs say", () => {
    let cli: string;
    let sandbox: ReturnType<typeof spawnGroup>;
    let url: string;
    let banner = "";
    beforeAll(async () => {
      cli = await mockCli();
      // `export PAYKIT_MOCK_ADMIN_TOKEN=…; npx paykit-mock --host 0.0.0.0 --shared`, on loopback here
      sandbox = spawnGroup(process.execPath, [cli, "--shared", "--port", "0"], {
        stdio: ["ignore", "pipe", "pipe"],
        env: envWith({ PAYKIT_MOCK_ADMIN_TOKEN: TOKEN }),
      });
      const lines = createInterface({ input: sandbox.stdout! });
      for await (const line of lines) {
        banner += `${line}\n`;
        if (line.startsWith("Shared sandbox:")) break;
      }
      url = (/http:\/\/127\.0\.0\.1:\d+/.exec(banner) as RegExpExecArray)[0];
    }, 120_000);
    afterAll(async () => {
      await stopAll();
      if (sandbox) await stopGroup(sandbox);
    });

    it("the sandbox takes its token from the variable: it guards the control API, and ps does not show it", async () => {
      expect(commandLine(sandbox.pid as number)).not.toContain(TOKEN);
      expect(banner).not.toContain(TOKEN);
      expect((await fetch(`${url}/_mock/clock`)).status).toBe(401);
      expect(
        (await fetch(`${url}/_mock/clock`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      ).toBe(200);
    });

    it("account create, listen and mcp take it from the variable too; none shows it in ps", async () => {
      const opened = await runGroup(process.execPath, [cli, "account", "create", "--url", url, "--env"], {
        env: envWith({ PAYKIT_MOCK_ADMIN_TOKEN: TOKEN }),
        timeoutMs: 60_000,
      });
      expect(opened.code, opened.stderr).toBe(0);
      const env = Object.fromEntries(
        opened.stdout
          .split("\n")
          .filter((line: string) => line.startsWith("PAYKIT_"))
          .map((line: string) => line.split("=", 2) as [string, string]),
      ) as Record<string, string>;

      const receiver = await localServer(() => ({ status: 204, body: "" }));
      const listen = spawnGroup(
        process.execPath,
        [cli, "listen", "--url", url, "--forward-to", receiver.url],
        {
          stdio: ["ignore", "pipe", "pipe"],
          env: envWith({ ...env, PAYKIT_MOCK_ADMIN_TOKEN: TOKEN }),
        },
      );
      try {
        for await (const line of createInterface({ input: listen.stdout! }))
          if (line.startsWith("Ready:")) break;
        expect(commandLine(listen.pid as number)).not.toContain(TOKEN);
      } finally {
        await stopGroup(listen);
      }

      const mcp = await startMcp(["--url", url], { PAYKIT_MOCK_ADMIN_TOKEN: TOKEN });
      expect(commandLine(mcp.pid)).not.toContain(TOKEN);
      // the admin token is what lets it open an account here and read it back
      const account = await mcp.call("createAccount", {});
      expect(account.isError, account.text).toBe(false);
      expect((await mcp.call("getAccount")).isError).toBe(false);
      expect(account.text).not.toContain(TOKEN);
    }, 120_000);
  });

  it("trigger on a mock guarded by a token (not shared) opens its account with the variable's token", async () => {
    const cli = await mockCli();
    const guarded = spawnGroup(process.execPath, [cli, "--port", "0", "--manual"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: envWith({ PAYKIT_MOCK_ADMIN_TOKEN: TOKEN }),
    });
    try {
      const first = (await createInterface({ input: guarded.stdout! })[Symbol.asyncIterator]().next())
        .value as string;
      const url = first.slice("Paykit mock listening on ".length);
      const without = await runGroup(process.execPath, [cli, "trigger", "payin.approved", "--url", url], {
        env: envWith({}),
        timeoutMs: 60_000,
      });
      expect(without.code).toBe(2);
      const run = await runGroup(process.execPath, [cli, "trigger", "payin.approved", "--url", url], {
        env: envWith({ PAYKIT_MOCK_ADMIN_TOKEN: TOKEN }),
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
    } finally {
      await stopGroup(guarded);
    }
  }, 120_000);
});
