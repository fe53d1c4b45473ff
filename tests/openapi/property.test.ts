// docs/openapi.json against the real mock over HTTP, driven by the document alone: requests generated
// from its schemas (valid and mutated), every answer checked with Ajv against the schema the document
// gives for that status, every refusal of a document-valid request traced to a documented rule.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createMockServer } from "@paykit/mock-server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaValidator } from "../../packages/contract/test/openapi-schemas.js";
import { arbitraryOf, resolve } from "./arbitrary.js";

type Json = Record<string, unknown>;
type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Json }>;
  requestBody?: { content: { "application/json": { schema: Json; example?: Json } } };
  responses: Record<
    string,
    { content?: { "application/json": { schema: Json } }; headers?: Record<string, { required?: boolean }> }
  >;
};

const doc = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as Json;
const paths = doc.paths as Record<string, Record<string, Operation>>;
const rules = doc["x-paykit-rules"] as Record<string, string>;
const validator = schemaValidator(doc);

/** Error codes a documented rule names: a refusal with one of these is explained by the document. */
const RULE_CODES = new Set(Object.values(rules).flatMap((text) => text.match(/\b[A-Z][A-Z_]{4,}\b/g) ?? []));

const SEED = 14;
const TIME_CAP_MS = 45_000;
/** Each phase's share of the time cap, so a slow machine still exercises every operation. */
const PHASE_SHARE = {
  createPayin: 0.3,
  createPayout: 0.3,
  retrievePayin: 0.1,
  listPayouts: 0.1,
  mutated: 0.2,
};
const RUNS = {
  createPayin: 500,
  createPayout: 300,
  retrievePayin: 100,
  listPayouts: 100,
  mutated: 200,
  unauthorized: 10,
};

/** Whether a dotted detail path (`customer.document`, `items.0.title`) reaches a field with an x-paykit-rule. */
function ruleAt(schema: Json, path: string): string | undefined {
  let nodes: Json[] = [schema];
  for (const part of path.split(".")) {
    const next: Json[] = [];
    for (let node of nodes) {
      if (typeof node.$ref === "string") node = resolve(doc, node.$ref);
      const branches = [node, ...((node.oneOf ?? node.anyOf ?? []) as Json[])].map((n) =>
        typeof n.$ref === "string" ? resolve(doc, n.$ref) : n,
      );
      for (const branch of branches) {
        if (/^\d+$/.test(part) && branch.items) next.push(branch.items as Json);
        const prop = (branch.properties as Record<string, Json> | undefined)?.[part];
        if (prop) next.push(prop);
      }
    }
    nodes = next;
  }
  const found = nodes.find((n) => typeof n["x-paykit-rule"] === "string");
  return found?.["x-paykit-rule"] as string | undefined;
}

let mock: Awaited<ReturnType<typeof createMockServer>>;
let hook: { url: string; close(): void; received: Array<{ headers: IncomingHttpHeaders; body: string }> };
let auth: string;

beforeAll(async () => {
  mock = await createMockServer();
  // An account with a webhook secret: the mock signs deliveries only then (the service always signs).
  const account = await mock.control.createAccount({
    webhookSecret: "whsec_b3BlbmFwaS1wcm9wZXJ0eS10ZXN0",
    balance: 1_000_000,
  });
  auth = `Basic ${Buffer.from(`${account.publicKey}:${account.secretKey}`).toString("base64")}`;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  hook = { url: `http://127.0.0.1:${port}/hook`, close: () => server.close(), received };
});

afterAll(async () => {
  await mock?.close();
  hook?.close();
});

interface Call {
  op: Operation;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

describe("docs/openapi.json against the mock", () => {
  it("every answer validates; document-valid requests are refused only by documented rules", async () => {
    const started = Date.now();
    const violations: string[] = [];
    const undocumented: string[] = [];
    let requests = 0;
    let valid = 0;
    let refused = 0;
    const refusedBy = new Map<string, number>();
    const accepted = new Map<string, number>();
    const createdPayins: string[] = [];
    /** Every status seen per operation: each status the document declares must be produced and checked. */
    const seen = new Map<string, Map<string, number>>();

    const send = async (call: Call) => {
      requests++;
      const res = await fetch(mock.url + call.path, {
        method: call.method,
        headers: {
          authorization: auth,
          ...(call.body === undefined ? {} : { "content-type": "application/json" }),
          ...call.headers,
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
      });
      const text = await res.text();
      const where = `${call.method} ${call.path} → ${res.status}`;
      const statuses = seen.get(call.op.operationId) ?? new Map<string, number>();
      statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
      seen.set(call.op.operationId, statuses);
      const declared = call.op.responses[String(res.status)];
      if (!declared) {
        violations.push(`${where}: status not declared`);
        return { status: res.status, body: undefined as Json | undefined };
      }
      for (const [name, header] of Object.entries(declared.headers ?? {}))
        if (header.required && !res.headers.has(name)) violations.push(`${where}: no ${name} header`);
      const schema = declared.content?.["application/json"]?.schema;
      let body: Json | undefined;
      if (schema) {
        try {
          body = JSON.parse(text) as Json;
        } catch {
          violations.push(`${where}: body is not JSON`);
          return { status: res.status, body };
        }
        const validate = validator.compile(schema);
        if (!validate(body)) violations.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      }
      return { status: res.status, body };
    };

    /** A document-valid request: a non-2xx answer must be explained by a documented rule. */
    const sendValid = async (call: Call, expectedMiss = false) => {
      valid++;
      const { status, body } = await send(call);
      if (status < 300) accepted.set(call.op.operationId, (accepted.get(call.op.operationId) ?? 0) + 1);
      if (status < 300 || expectedMiss) return body;
      refused++;
      const code = body?.code as string | undefined;
      refusedBy.set(String(code), (refusedBy.get(String(code)) ?? 0) + 1);
      const details = (body?.details ?? []) as Array<{ path: string; message: string }>;
      const schema = call.op.requestBody?.content["application/json"].schema ?? {};
      const explained =
        code === "INVALID_DATA"
          ? details.length > 0 && details.every((d) => ruleAt(schema, d.path) !== undefined)
          : code !== undefined && RULE_CODES.has(code);
      if (!explained)
        undocumented.push(
          `${call.method} ${call.path} ${status} ${JSON.stringify(body)} for ${JSON.stringify(call.body)}`,
        );
      return body;
    };

    const bodyOf = (op: Operation) => op.requestBody?.content["application/json"].schema as Json;
    const withHook = (value: unknown) => {
      // Deliveries go to our own receiver, never to a generated host.
      const body = value as Json;
      if ("webhookUrl" in body) body.webhookUrl = hook.url;
      return body;
    };
    const validBodies = (op: Operation, runs: number) => {
      const validate = validator.compile(bodyOf(op));
      return fc
        .sample(arbitraryOf(bodyOf(op), doc), { numRuns: runs * 2, seed: SEED })
        .map(withHook)
        .filter((b) => validate(b))
        .slice(0, runs);
    };
    let phaseEnd = started;
    const phase = (name: keyof typeof PHASE_SHARE) => {
      phaseEnd = Math.max(phaseEnd, Date.now()) + PHASE_SHARE[name] * TIME_CAP_MS;
    };
    const late = () => Date.now() > phaseEnd;

    const createPayin = paths["/payin"]!.post!;
    const createPayout = paths["/payout"]!.post!;
    // The document's own example requests first: whatever the time cap cuts on a loaded machine, the
    // success paths (201, then 200 on retrieval) are exercised, and an example the mock refuses is a finding.
    const exampleOf = (op: Operation) => structuredClone(op.requestBody?.content["application/json"].example);
    // Generated before any request: generating is seconds of CPU on a loaded machine, and a client
    // connection left idle across it meets the server's keep-alive close (ECONNRESET).
    const payinBodies = validBodies(createPayin, RUNS.createPayin);
    const payoutBodies = validBodies(createPayout, RUNS.createPayout);
    const mutationBases = new Map([
      [createPayin, validBodies(createPayin, RUNS.mutated / 2)],
      [createPayout, validBodies(createPayout, RUNS.mutated / 2)],
    ]);
    const [validPayin] = payinBodies;
    const [validPayout] = payoutBodies;
    const cardPayin = fc
      .sample(arbitraryOf(bodyOf(createPayin), doc), { numRuns: 400, seed: SEED })
      .map(withHook)
      .find((b) => (b as Json).paymentMethod === "CREDIT_CARD" && validator.compile(bodyOf(createPayin))(b));
    for (const [op, path] of [
      [createPayin, "/payin"],
      [createPayout, "/payout"],
    ] as const) {
      const created = await sendValid({ op, method: "POST", path, body: withHook(exampleOf(op)) });
      expect(created?.status, `the example request of ${op.operationId} is accepted`).toBeDefined();
      if (op === createPayin && typeof created?.id === "string") createdPayins.push(created.id);
    }
    phase("createPayin");
    for (const body of payinBodies) {
      if (late()) break;
      const created = await sendValid({ op: createPayin, method: "POST", path: "/payin", body });
      if (typeof created?.id === "string" && created.status !== undefined) createdPayins.push(created.id);
    }
    phase("createPayout");
    for (const body of payoutBodies) {
      if (late()) break;
      await sendValid({ op: createPayout, method: "POST", path: "/payout", body });
    }

    // GET /payin/{id}: ids of payins made above (200), and ids from the parameter's schema (404).
    const retrieve = paths["/payin/{id}"]!.get!;
    phase("retrievePayin");
    const randomIds = fc.sample(arbitraryOf(retrieve.parameters![0]!.schema, doc), {
      numRuns: RUNS.retrievePayin / 2,
      seed: SEED,
    });
    for (const id of [...createdPayins.slice(0, RUNS.retrievePayin / 2), ...randomIds.map(String)]) {
      if (late()) break;
      await sendValid(
        { op: retrieve, method: "GET", path: `/payin/${encodeURIComponent(id)}` },
        !createdPayins.includes(id),
      );
    }

    // GET /payout with a query built from the parameters' schemas.
    const list = paths["/payout"]!.get!;
    phase("listPayouts");
    const query = fc.record(
      Object.fromEntries(list.parameters!.map((p) => [p.name, arbitraryOf(p.schema, doc)])),
      { requiredKeys: [] },
    );
    for (const q of fc.sample(query, { numRuns: RUNS.listPayouts, seed: SEED })) {
      if (late()) break;
      const search = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]));
      await sendValid({ op: list, method: "GET", path: `/payout?${search}` });
    }

    // Mutated bodies the document calls invalid: the mock must refuse them with INVALID_DATA.
    const mutation = fc.constantFrom("drop", "retype", "extra");
    let mutated = 0;
    phase("mutated");
    for (const [op, path] of [
      [createPayin, "/payin"],
      [createPayout, "/payout"],
    ] as const) {
      const validate = validator.compile(bodyOf(op));
      const bodies = mutationBases.get(op) ?? [];
      const kinds = fc.sample(fc.tuple(mutation, fc.nat()), { numRuns: bodies.length, seed: SEED });
      for (const [i, base] of bodies.entries()) {
        if (late()) break;
        const [kind, n] = kinds[i]!;
        const body = structuredClone(base) as Json;
        const keys = Object.keys(body);
        const key = keys[n % keys.length]!;
        if (kind === "drop") delete body[key];
        else if (kind === "retype") body[key] = typeof body[key] === "string" ? 12345 : "not-the-type";
        else body.unexpectedField = true;
        if (validate(body)) continue;
        mutated++;
        const answer = await send({ op, method: "POST", path, body });
        if (answer.status !== 400 || answer.body?.code !== "INVALID_DATA")
          violations.push(
            `mutated (${kind} ${key}) POST ${path} → ${answer.status} ${JSON.stringify(answer.body)}`,
          );
      }
    }

    // Bad credentials: 401 as documented.
    for (let i = 0; i < RUNS.unauthorized; i++) {
      const answer = await send({
        op: retrieve,
        method: "GET",
        path: "/payin/pi_x",
        headers: { authorization: "Basic eDp5" },
      });
      if (answer.status !== 401) violations.push(`bad credentials → ${answer.status}`);
    }

    // Every error answer each operation declares, produced for real where the mock can (401 bad
    // credentials, 403 an account without KYC or card processing, 404 an unknown id, 413 an oversized
    // body, 415 a text body, 400 a bad query) and through the mock's fault injection for the service's
    // own failures (429 with Retry-After, 500, 502 with each declared code), then checked like the rest.
    const unapproved = await mock.control.createAccount({ kycApproved: false });
    const noCards = await mock.control.createAccount({ creditCardEnabled: false });
    const basic = (a: { publicKey: string; secretKey: string }) =>
      `Basic ${Buffer.from(`${a.publicKey}:${a.secretKey}`).toString("base64")}`;
    const operations: Array<[Operation, string, string, unknown]> = [
      [createPayin, "POST", "/payin", validPayin],
      [createPayout, "POST", "/payout", validPayout],
      [retrieve, "GET", `/payin/${createdPayins[0] ?? "pi_x"}`, undefined],
      [list, "GET", "/payout", undefined],
    ];
    for (const [op, method, path, body] of operations) {
      const route = path.split("?")[0] as string;
      for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
        const declaredCodes = ((
          (op.responses[status]?.content?.["application/json"]?.schema?.allOf as Json[] | undefined)?.[1]
            ?.properties as Record<string, { enum?: string[] }> | undefined
        )?.code?.enum ?? []) as string[];
        const call: Call = { op, method, path, body };
        switch (status) {
          case "400":
            if (method === "GET") await send({ ...call, path: `${route}?limit=0` });
            break; // the POSTs' 400s come from the mutated bodies above
          case "401":
            await send({ ...call, headers: { authorization: "Basic eDp5" } });
            break;
          case "403":
            await send({ ...call, headers: { authorization: basic(unapproved) } });
            if (op === createPayin && cardPayin)
              await send({ ...call, body: cardPayin, headers: { authorization: basic(noCards) } });
            break;
          case "404":
            await send({ ...call, path: "/payin/pi_not_here" });
            break;
          case "413":
            await send({ ...call, body: { ...(body as Json), padding: "x".repeat(1_100_000) } });
            break;
          case "415":
            await send({ ...call, headers: { "content-type": "text/plain" } });
            break;
          default:
            for (const code of declaredCodes) {
              await mock.control.addFault({ method, path: route, status: Number(status), code });
              await send(call);
            }
        }
      }
    }
    const missing = [...Object.entries(paths)].flatMap(([path, methods]) =>
      Object.values(methods).flatMap((op) =>
        Object.keys(op.responses)
          .filter((status) => !seen.get(op.operationId)?.has(status))
          .map((status) => `${op.operationId} ${status} (${path})`),
      ),
    );

    // Settle some payins (the mock's control API) so their webhooks go out and can be checked too.
    for (const id of createdPayins.slice(0, 40)) await mock.control.payPayin(id).catch(() => undefined);
    await mock.control.flushWebhooks();
    // Webhooks delivered meanwhile: Standard Webhooks headers, bodies valid by the document's webhooks.
    await new Promise((ok) => setTimeout(ok, 300));
    const webhooks = doc.webhooks as Record<
      string,
      { post: { requestBody: { content: { "application/json": { schema: Json } } } } }
    >;
    const payinHook = validator.compile(
      webhooks.payinStatusChanged!.post.requestBody.content["application/json"].schema,
    );
    const payoutHook = validator.compile(
      webhooks.payoutStatusChanged!.post.requestBody.content["application/json"].schema,
    );
    for (const delivery of hook.received) {
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"])
        if (!delivery.headers[name]) violations.push(`webhook without ${name}`);
      const body = JSON.parse(delivery.body) as Json;
      const validate = "pixKey" in body ? payoutHook : payinHook;
      if (!validate(body)) violations.push(`webhook ${delivery.body}: ${JSON.stringify(validate.errors)}`);
    }

    const rate = valid === 0 ? 0 : (100 * refused) / valid;
    console.log(
      `openapi: ${requests} requests, ${violations.length} response violations, ${rate.toFixed(1)}% of document-valid requests refused (${undocumented.length === 0 ? "all by documented rules" : `${undocumented.length} not by documented rules`}); ${mutated} mutated requests refused, ${hook.received.length} webhooks checked, ${Date.now() - started} ms`,
    );
    console.log(
      `openapi: refusals by code ${JSON.stringify(Object.fromEntries(refusedBy))}; accepted ${JSON.stringify(Object.fromEntries(accepted))}`,
    );
    console.log(
      `openapi: answers by operation and status ${JSON.stringify(Object.fromEntries([...seen].map(([op, m]) => [op, Object.fromEntries(m)])))}`,
    );
    expect(violations.slice(0, 10)).toEqual([]);
    // every status every operation declares was produced and validated
    expect(missing).toEqual([]);
    // The success paths were exercised, not only refusals.
    for (const op of ["createPayin", "createPayout", "retrievePayin", "listPayouts"])
      expect(accepted.get(op), op).toBeGreaterThan(0);
    expect(hook.received.length).toBeGreaterThan(0);
    expect(undocumented.slice(0, 10)).toEqual([]);
    expect(requests).toBeGreaterThan(500);
    expect(mutated).toBeGreaterThan(50);
  });
});
