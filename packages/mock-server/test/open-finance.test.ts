import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { warmStore } from "./durable-harness.js";
import { apiOf, type Harness, openFinancePayin, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

const STORE = "https://loja.example/pedido?o=42";

// The redirect to the mock bank and back (`openFinanceRedirectUrl` serves the bank's authorization
// page: docs/decisions/payment-data.md), over the same three transports as the scenario suite.
describe.each(TRANSPORTS_AND_STORES)("the open finance bank page over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  let h: Harness;
  let api: ReturnType<typeof apiOf>;
  beforeEach(async () => {
    h = await startHarness(transport, { autoAdvance: false });
    api = apiOf(h);
  });
  afterEach(() => h.close());

  // The page's own token, read from the form the bank rendered: a decision must carry it.
  let token = "";
  async function bankPage() {
    const created = await api.post("/payin", openFinancePayin());
    expect(created.status).toBe(201);
    const path = created.body.openFinanceRedirectUrl.slice(h.base.length) as string;
    token = /name="token" value="([^"]+)"/.exec((await text(path)).body)?.[1] ?? "";
    expect(token).toMatch(/^\w{32}$/);
    return { id: created.body.id as string, path };
  }
  async function text(path: string, init?: RequestInit) {
    const res = (await h.send(path, init)) as Response;
    return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
  }
  const decide = (path: string, form: string, headers: Record<string, string> = {}) =>
    text(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: `${form}&token=${token}`,
    });
  const status = async (id: string) => (await api.get(`/payin/${id}`)).body.status;

  it.each([
    ["approve", "APPROVED"],
    ["deny", "REFUSED"],
  ])(
    "with ?returnUrl=, %s shows the outcome and sends the customer back with it",
    async (decision, outcome) => {
      const { id, path } = await bankPage();
      const page = await text(`${path}?returnUrl=${encodeURIComponent(STORE)}`);
      expect(page.status).toBe(200);
      // The form carries the return URL to the decision, HTML-escaped.
      expect(page.body).toContain(`<input type="hidden" name="returnUrl" value="${STORE}">`);

      const done = await decide(path, `decision=${decision}&returnUrl=${encodeURIComponent(STORE)}`);
      expect(done).toMatchObject({ status: 200, type: "text/html; charset=utf-8" });
      // `&` is written as `&#38;` inside the attributes.
      const back = `https://loja.example/pedido?o=42&#38;payinId=${id}&#38;status=${outcome}`;
      expect(done.body).toContain(`<dd id="status">${outcome}</dd>`);
      expect(done.body).toContain(`<meta http-equiv="refresh" content="3;url=${back}">`);
      expect(done.body).toContain(`<a id="return" href="${back}">`);
      expect(await status(id)).toBe(outcome);

      // Coming back to the bank page later: decided, with the way back.
      const again = await text(`${path}?returnUrl=${encodeURIComponent(STORE)}`);
      expect(again.body).toContain("Este pagamento já foi decidido.");
      expect(again.body).toContain(`<a id="return" href="${back}">`);
    },
  );

  it("takes the return URL from the query of a direct post too (JSON body)", async () => {
    const { id, path } = await bankPage();
    const done = await text(`${path}?returnUrl=${encodeURIComponent("http://localhost:3000/back")}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", token }),
    });
    expect(done.body).toContain(`url=http://localhost:3000/back?payinId=${id}&#38;status=APPROVED"`);
  });

  it.each([
    ["no token", "decision=approve", {}],
    ["another page's token", "decision=approve&token=x", {}],
  ])("refuses a decision with %s (403) and decides nothing", async (_, form) => {
    const { id, path } = await bankPage();
    const res = await text(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: "INVALID_PAGE_TOKEN" });
    expect(await status(id)).toBe("PENDING");
  });

  it.each([
    ["Origin of another site", { origin: "https://evil.example" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
  ])("refuses a decision posted with %s, even with the token", async (_, headers) => {
    const { id, path } = await bankPage();
    const res = await decide(path, "decision=approve", headers);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: "FORBIDDEN_ORIGIN" });
    expect(await status(id)).toBe("PENDING");
  });

  it("cannot be framed, and its buttons are named Approve and Deny", async () => {
    const { path } = await bankPage();
    const res = (await h.send(path)) as Response;
    expect(res.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).toMatch(
      /value="approve" class="primary">Approve<span class="pt" lang="pt-BR" aria-hidden="true">/,
    );
    expect(html).toMatch(/value="deny" class="danger">Deny<span/);
  });

  it("without a return URL shows the outcome only", async () => {
    const { id, path } = await bankPage();
    expect((await text(path)).body).not.toContain('name="returnUrl"');
    const done = await decide(path, "decision=approve");
    expect(done.status).toBe(200);
    expect(done.body).not.toContain("http-equiv");
    expect(done.body).not.toContain('id="return"');
    expect(await status(id)).toBe("APPROVED");
  });

  it.each([
    ["a script link", "javascript:alert(1)", "must be an absolute http or https URL"],
    ["a data URL", "data:text/html,<b>x</b>", "must be an absolute http or https URL"],
    ["another scheme", "ftp://loja.example/", "must be an absolute http or https URL"],
    ["a relative path", "/pedido/42", "must be an absolute http or https URL"],
    ["credentials", "https://user:secret@loja.example/", "must not carry a user name or password"],
    ["2049 characters", `https://loja.example/${"a".repeat(2049 - 21)}`, "must have at most 2048 characters"],
  ])("refuses %s as returnUrl with 400 INVALID_DATA and decides nothing", async (_, returnUrl, message) => {
    const { id, path } = await bankPage();
    const query = `?returnUrl=${encodeURIComponent(returnUrl)}`;
    for (const res of [
      await text(path + query),
      await decide(path, `decision=approve&returnUrl=${encodeURIComponent(returnUrl)}`),
      await decide(path + query, "decision=approve"),
    ]) {
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        code: "INVALID_DATA",
        details: [{ path: "returnUrl", message }],
      });
    }
    expect(await status(id)).toBe("PENDING");
  });
});
