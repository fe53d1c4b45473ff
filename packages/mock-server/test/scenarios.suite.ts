import { parseBoletoLine, parseBrCode } from "@paykit/contract";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { shareClusters, warmStore } from "./durable-harness.js";
import {
  apiOf,
  basic,
  boletoPayin,
  cardPayin,
  customer,
  type Harness,
  openFinancePayin,
  payoutBody,
  pixPayin,
  ref,
  startHarness,
  type TransportName,
} from "./fixtures.js";

// One scenario suite, three transports (docs/decisions/how-the-code-is-shaped.md: engine tests open no
// port; the same scenarios then run over node:http and msw) and the durable stores. Each store's run is
// a test file of its own (scenarios*.test.ts), so that vitest's workers run them side by side.
/** Registers the whole scenario suite over one transport or store. */
export function scenarioSuite(transport: TransportName): void {
  describe(`the mock service over ${transport}`, () => {
    beforeAll(async () => {
      await warmStore(transport);
      // two new processes per test took most of each test's time: the tests share them, each
      // starting from a reset sandbox
      if (transport === "cluster") await shareClusters(true);
    }, 120_000);
    afterAll(() => shareClusters(false));
    let h: Harness;
    let api: ReturnType<typeof apiOf>;
    beforeEach(async () => {
      h = await startHarness(transport, { autoAdvance: false });
      api = apiOf(h);
      // A fixed daytime moment (14:00 in São Paulo) so payout limits do not depend on when tests run.
      await h.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
    });
    afterEach(() => h.close());

    describe("authentication (spec: Authentication; docs/decisions/authentication.md)", () => {
      it("answers 403 KYC_NOT_APPROVED on every request of an account without KYC", async () => {
        const keys = await h.control.createAccount({ kycApproved: false });
        const other = apiOf(h, keys);
        expect(await other.get("/payout")).toMatchObject({ status: 403, body: { code: "KYC_NOT_APPROVED" } });
        expect(await other.post("/payin", pixPayin())).toMatchObject({
          status: 403,
          body: { code: "KYC_NOT_APPROVED" },
        });
      });

      it("answers 403 CREDIT_CARD_NOT_ENABLED to a card payin without the extra KYC", async () => {
        const keys = await h.control.createAccount({ creditCardEnabled: false });
        const res = await apiOf(h, keys).post("/payin", cardPayin());
        expect(res).toMatchObject({ status: 403, body: { code: "CREDIT_CARD_NOT_ENABLED" } });
      });

      it("hides a payin from other accounts with 404", async () => {
        const created = await api.post("/payin", pixPayin());
        const keys = await h.control.createAccount();
        const res = await apiOf(h, keys).get(`/payin/${created.body.id}`);
        expect(res).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
      });

      it("issues pk_test_/sk_test_ keys, never live ones", async () => {
        const keys = await h.control.createAccount();
        expect(keys.publicKey).toMatch(/^pk_test_/);
        expect(keys.secretKey).toMatch(/^sk_test_/);
      });
    });

    describe("POST /payin (spec: payin creation; docs/decisions/magic-values.md)", () => {
      it("creates a PIX payin PENDING with a valid BR Code for the amount in reais", async () => {
        const res = await api.post("/payin", pixPayin({ amount: 12_345 }));
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ status: "PENDING", paymentMethod: "PIX", amount: 12_345 });
        expect(res.body.id).toMatch(/^pi_[0-9A-Z]{26}$/);
        expect(res.body.externalId).toMatch(/^acq_/);
        expect(Object.keys(res.body).sort()).toEqual(
          ["amount", "createdAt", "externalId", "id", "paymentMethod", "pix", "referenceId", "status"].sort(),
        );
        expect(parseBrCode(res.body.pix.qrcode).amountCents).toBe(12_345);
      });

      it("creates a BOLETO payin with a 47-digit line due in 3 days and a PDF", async () => {
        const res = await api.post("/payin", boletoPayin({ amount: 25_000 }));
        expect(res.status).toBe(201);
        const line = parseBoletoLine(res.body.boleto.barcode, new Date("2030-03-12"));
        expect(res.body.boleto.barcode).toMatch(/^\d{47}$/);
        expect(line).toMatchObject({ amountCents: 25_000, dueDate: "2030-03-15" });
        expect(res.body.boleto.url.startsWith(h.base)).toBe(true);
        const pdf = await h.send(res.body.boleto.url.slice(h.base.length));
        const bytes = new Uint8Array(await (pdf as Response).arrayBuffer());
        const text = new TextDecoder().decode(bytes);
        expect((pdf as Response).headers.get("content-type")).toBe("application/pdf");
        expect(text.startsWith("%PDF-1.4")).toBe(true);
        expect(text).toContain("R$ 250,00");
        // Every xref offset points at its object.
        const xref = text.slice(text.indexOf("xref"));
        const offsets = [...xref.matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
        offsets.forEach((offset, i) => {
          expect(text.slice(offset).startsWith(`${i + 1} 0 obj\n`)).toBe(true);
        });
        expect(Number(/startxref\n(\d+)/.exec(text)?.[1])).toBe(text.indexOf("xref"));
      });

      it("creates an OPEN_FINANCE payin whose bank page approves it", async () => {
        const res = await api.post("/payin", openFinancePayin());
        expect(res.status).toBe(201);
        const path = res.body.openFinanceRedirectUrl.slice(h.base.length);
        const page = (await h.send(path)) as Response;
        expect(page.headers.get("content-type")).toContain("text/html");
        const html = await page.text();
        expect(html).toContain('value="approve"');
        const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
        const decided = (await h.send(path, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `decision=approve&token=${token}`,
        })) as Response;
        expect(decided.status).toBe(200);
        expect((await api.get(`/payin/${res.body.id}`)).body.status).toBe("APPROVED");
      });

      it.each([
        ["4111111111111111", 201, "APPROVED"],
        ["5555555555554444", 201, "APPROVED"],
        ["4000000000000002", 201, "REFUSED"],
        ["4000000000003220", 201, "PENDING_3DS"],
      ])("card %s answers %i %s", async (number, status, payinStatus) => {
        const res = await api.post("/payin", cardPayin(number));
        expect(res).toMatchObject({ status, body: { status: payinStatus, paymentMethod: "CREDIT_CARD" } });
        expect(JSON.stringify(res.body)).not.toContain(number);
      });

      it.each([
        ["4000000000009995", 400, "PAYER_LIMIT_REJECTED"],
        ["4000000000000127", 400, "INVALID_CVV"],
        ["4000000000000119", 502, "PROVIDER_ERROR"],
        ["4100000000000019", 400, "REJECTED_BY_RISK"],
      ])("card %s answers %i %s", async (number, status, code) => {
        const res = await api.post("/payin", cardPayin(number));
        expect(res).toMatchObject({ status, body: { code } });
        expect(JSON.stringify(res.body)).not.toContain(number);
      });

      it.each(["PIX", "BOLETO", "OPEN_FINANCE", "CREDIT_CARD"])(
        "a customer e-mail at @risk.test is REJECTED_BY_RISK for %s",
        async (method) => {
          const risky = { ...customer, email: "fraud@risk.test" };
          const body =
            method === "PIX"
              ? pixPayin({ customer: risky })
              : method === "BOLETO"
                ? boletoPayin({ customer: risky })
                : method === "CREDIT_CARD"
                  ? cardPayin(undefined, { customer: risky })
                  : openFinancePayin({ customer: { ...risky, address: undefined } });
          expect(await api.post("/payin", body)).toMatchObject({
            status: 400,
            body: { code: "REJECTED_BY_RISK" },
          });
        },
      );

      it("answers PENDING_3DS with every 3DS field and an SDK URL on the mock's origin", async () => {
        const res = await api.post("/payin", cardPayin("4000000000003220"));
        expect(res.body).toMatchObject({ status: "PENDING_3DS", threeDSecurePending: true });
        expect(res.body.threeDSecureSession).toMatch(/^[A-Za-z0-9]{32}$/);
        expect(res.body.threeDSecureTransactionId).toMatch(/^3ds_/);
        expect(res.body.threeDSecureSdkUrl).toBe(`${h.base}/_mock/acquirer/three-ds.js`);
      });

      it.each([
        ["amount", { amount: 0 }, "amount"],
        ["amount", { amount: -100 }, "amount"],
        ["amount", { amount: 10.5 }, "amount"],
        ["amount", { amount: "100" }, "amount"],
        ["CPF", { customer: { ...customer, document: "12345678900" } }, "customer.document"],
        ["phone", { customer: { ...customer, phone: "11987654321" } }, "customer.phone"],
        [
          "zip code",
          { customer: { ...customer, address: { ...customer.address, zipCode: "01305-000" } } },
          "customer.address.zipCode",
        ],
        [
          "state",
          { customer: { ...customer, address: { ...customer.address, state: "XX" } } },
          "customer.address.state",
        ],
        ["payer IP", { payerIp: "::1" }, "payerIp"],
        ["empty items", { items: [] }, "items"],
        ["item quantity", { items: [{ title: "x", quantity: 0, unitPrice: 1 }] }, "items.0.quantity"],
        ["missing referenceId", { referenceId: undefined }, "referenceId"],
        ["unknown field", { coupon: "X" }, "coupon"],
        ["unknown method", { paymentMethod: "CASH" }, "paymentMethod"],
        ["webhookUrl", { webhookUrl: "ftp://x" }, "webhookUrl"],
        ["huge referenceId", { referenceId: "x".repeat(10_000) }, "referenceId"],
      ])("refuses a bad %s with 400 INVALID_DATA naming %s", async (_, patch, path) => {
        const res = await api.post("/payin", { ...pixPayin(), ...patch });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("INVALID_DATA");
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      });

      it("accepts unicode names and keeps them", async () => {
        const res = await api.post(
          "/payin",
          pixPayin({ customer: { ...customer, name: "José Açaí 日本 🎉" } }),
        );
        expect(res.status).toBe(201);
        expect((await api.get(`/payin/${res.body.id}`)).body.customer.name).toBe("José Açaí 日本 🎉");
      });

      it("requires card data for CREDIT_CARD, and a token may replace it", async () => {
        const missing = await api.post("/payin", { ...cardPayin(), card: undefined });
        expect(missing).toMatchObject({ status: 400, body: { code: "INVALID_DATA" } });
        const token = await api.post(
          "/payin",
          cardPayin(undefined, { card: { token: "tok_123", installments: 3 } }),
        );
        expect(token).toMatchObject({ status: 201, body: { status: "APPROVED" } });
      });
    });

    describe("payin transitions (docs/decisions/payin-statuses.md)", () => {
      it("a paid PIX becomes APPROVED with its net amount, and cannot be paid twice", async () => {
        const created = await api.post("/payin", pixPayin({ amount: 10_000 }));
        const paid = await h.control.payPayin(created.body.id);
        expect(paid).toMatchObject({ status: "APPROVED", netAmount: 10_000 - 99, reservedAmount: 0 });
        const record = await api.get(`/payin/${created.body.id}`);
        expect(record.body).toMatchObject({
          status: "APPROVED",
          currency: "BRL",
          installments: null,
          pixCopyAndPaste: created.body.pix.qrcode,
          boletoBarcode: null,
        });
        await expect(h.control.payPayin(created.body.id)).rejects.toMatchObject({
          status: 400,
          code: "INVALID_DATA",
          message: expect.stringContaining("APPROVED"),
        });
      });

      it.each([
        ["PIX", 3_600_000],
        ["BOLETO", 3 * 86_400_000],
      ])("a pending %s expires on the clock after %i ms", async (method, ms) => {
        const body = method === "PIX" ? pixPayin() : boletoPayin();
        const created = await api.post("/payin", body);
        await h.control.setClock({ advanceMs: ms - 1000 });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("PENDING");
        await h.control.setClock({ advanceMs: 1000 });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("EXPIRED");
      });

      it("open finance: authorize false refuses; a card payin cannot be paid like a PIX", async () => {
        const of = await api.post("/payin", openFinancePayin());
        expect(await h.control.authorizePayin(of.body.id, false)).toMatchObject({
          status: "REFUSED",
          netAmount: null,
        });
        const card = await api.post("/payin", cardPayin("4000000000003220"));
        await expect(h.control.payPayin(card.body.id)).rejects.toMatchObject({ code: "INVALID_DATA" });
      });

      it("expire moves PENDING to EXPIRED and refuses a final payin", async () => {
        const created = await api.post("/payin", pixPayin());
        expect(await h.control.expirePayin(created.body.id)).toMatchObject({ status: "EXPIRED" });
        await expect(h.control.expirePayin(created.body.id)).rejects.toMatchObject({ code: "INVALID_DATA" });
        await expect(h.control.expirePayin("pi_nope")).rejects.toMatchObject({
          status: 404,
          code: "NOT_FOUND",
        });
      });

      it("holds 10 % of a card payin's net as reserve for 30 days", async () => {
        const keys = await h.control.createAccount();
        const created = await apiOf(h, keys).post("/payin", cardPayin(undefined, { amount: 100_000 }));
        const net = 100_000 - 3_990;
        const record = await apiOf(h, keys).get(`/payin/${created.body.id}`);
        expect(record.body).toMatchObject({ netAmount: net, reservedAmount: 9_601, installments: 1 });
        expect((await h.control.getAccount(keys.accountId)).balance).toEqual({
          available: net - 9_601,
          reserved: 9_601,
          pending: 0,
        });
        await h.control.setClock({ advanceMs: 30 * 86_400_000 });
        expect((await h.control.getAccount(keys.accountId)).balance).toEqual({
          available: net,
          reserved: 0,
          pending: 0,
        });
      });
    });

    describe("POST /payout (docs/decisions/balance.md, docs/decisions/payout-statuses.md, docs/decisions/magic-values.md)", () => {
      it("creates a PENDING payout, debits it at once and walks PROCESSING → COMPLETED", async () => {
        const res = await api.post("/payout", payoutBody({ amount: 5_000 }));
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({
          status: "PENDING",
          externalId: null,
          feeAmount: null,
          netAmount: null,
          bankReceipt: null,
          failureCode: null,
          currency: "BRL",
          beneficiaryName: "Maria Santos",
          beneficiaryDocument: "46482432344",
        });
        expect(res.body.id).toMatch(/^po_[0-9A-Z]{26}$/);
        expect((await h.control.getAccount(h.account.accountId)).balance).toEqual({
          available: 995_000,
          reserved: 0,
          pending: 5_000,
        });
        const processing = await h.control.advancePayout(res.body.id);
        expect(processing).toMatchObject({ status: "PROCESSING", feeAmount: 100, netAmount: 4_900 });
        expect(processing.externalId).toMatch(/^E99999004\d{12}[A-Za-z0-9]{11}$/);
        expect(processing.externalId).toHaveLength(32);
        expect(await h.control.advancePayout(res.body.id)).toMatchObject({ status: "COMPLETED" });
        expect((await h.control.getAccount(h.account.accountId)).balance).toEqual({
          available: 995_000,
          reserved: 0,
          pending: 0,
        });
        await expect(h.control.advancePayout(res.body.id)).rejects.toMatchObject({ code: "INVALID_DATA" });
        expect(await h.control.refundPayout(res.body.id)).toMatchObject({ status: "REFUNDED" });
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000);
      });

      it("keeps beneficiary fields as sent", async () => {
        const res = await api.post(
          "/payout",
          payoutBody({ beneficiaryName: "Outro Nome", beneficiaryDocument: "39493662292" }),
        );
        expect(res.body).toMatchObject({ beneficiaryName: "Outro Nome", beneficiaryDocument: "39493662292" });
      });

      it("manual approval: AWAITING_APPROVAL → APPROVED → PROCESSING, or rejected → CANCELED with the amount back", async () => {
        const keys = await h.control.createAccount({ payoutApproval: "manual", balance: 50_000 });
        const a = apiOf(h, keys);
        const first = await a.post("/payout", payoutBody({ amount: 10_000 }));
        expect(first.body.status).toBe("AWAITING_APPROVAL");
        expect(await h.control.approvePayout(first.body.id)).toMatchObject({ status: "APPROVED" });
        expect(await h.control.advancePayout(first.body.id)).toMatchObject({ status: "PROCESSING" });
        const second = await a.post("/payout", payoutBody({ amount: 20_000 }));
        expect((await h.control.getAccount(keys.accountId)).balance.available).toBe(20_000);
        expect(await h.control.rejectPayout(second.body.id)).toMatchObject({ status: "CANCELED" });
        expect((await h.control.getAccount(keys.accountId)).balance.available).toBe(40_000);
      });

      it.each([
        ["reject@bank.test", "FAILED"],
        ["refuse@bank.test", "REFUSED"],
      ])("%s settles %s with PROVIDER_REJECTED at the step after PROCESSING", async (pixKey, status) => {
        const res = await api.post("/payout", payoutBody({ pixKey, amount: 7_000 }));
        await h.control.advancePayout(res.body.id);
        expect(await h.control.advancePayout(res.body.id)).toMatchObject({
          status,
          failureCode: "PROVIDER_REJECTED",
        });
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000);
      });

      it("fail moves a PROCESSING payout to FAILED or REFUSED and gives the amount back", async () => {
        const a = await api.post("/payout", payoutBody());
        await h.control.advancePayout(a.body.id);
        expect(await h.control.failPayout(a.body.id, "REFUSED")).toMatchObject({
          status: "REFUSED",
          failureCode: "PROVIDER_REJECTED",
        });
        const b = await api.post("/payout", payoutBody());
        await expect(h.control.failPayout(b.body.id)).rejects.toMatchObject({
          code: "INVALID_DATA",
          message: expect.stringContaining("PENDING"),
        });
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000 - 5_000);
      });

      it("reject-now@bank.test answers 502 PROVIDER_REJECTED; the payout exists FAILED and the balance is whole", async () => {
        const body = payoutBody({ pixKey: "reject-now@bank.test" });
        const res = await api.post("/payout", body);
        expect(res).toMatchObject({ status: 502, body: { code: "PROVIDER_REJECTED" } });
        const list = await api.get(`/payout?referenceId=${body.referenceId}`);
        expect(list.body.data).toMatchObject([
          { status: "FAILED", failureCode: "PROVIDER_REJECTED", referenceId: body.referenceId },
        ]);
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000);
      });

      it.each([
        ["amount 99999", { amount: 99_999 }, 502, "TEMPORARY_UNAVAILABLE"],
        ["the key absent from the directory", { pixKey: "notfound@bank.test" }, 400, "INVALID_PIX_KEY"],
        [
          "a CPF key with wrong check digits",
          { pixKey: "52998224726", pixKeyType: "CPF" },
          400,
          "INVALID_PIX_KEY",
        ],
        ["a malformed e-mail key", { pixKey: "not-an-email" }, 400, "INVALID_PIX_KEY"],
        [
          "a key of another type",
          { pixKey: "maria.santos@example.com", pixKeyType: "CPF" },
          400,
          "INVALID_PIX_KEY",
        ],
        ["a phone key without +55", { pixKey: "11987654321", pixKeyType: "PHONE" }, 400, "INVALID_PIX_KEY"],
        ["an amount not above the fee", { amount: 100 }, 400, "INVALID_DATA"],
        ["a fractional amount", { amount: 100.5 }, 400, "INVALID_DATA"],
        ["an unknown key type", { pixKeyType: "IBAN" }, 400, "INVALID_DATA"],
        ["more than the balance", { amount: 1_000_001 }, 400, "INSUFFICIENT_FUNDS"],
        ["more than the day limit", { amount: 10_000_001 }, 400, "BEYOND_LIMITS"],
      ])("refuses %s with %i %s", async (_, patch, status, code) => {
        const res = await api.post("/payout", payoutBody(patch));
        expect(res).toMatchObject({ status, body: { code } });
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000);
      });

      it.each([
        ["2030-03-12T22:59:00.000Z", 100_001, 400], // 19:59 in São Paulo: day limit
        ["2030-03-12T23:00:00.000Z", 100_001, 400], // 20:00: night limit
        ["2030-03-12T23:00:00.000Z", 100_000, 201],
        ["2030-03-13T09:00:00.000Z", 100_001, 201], // 06:00: day again
      ])("at %s a payout of %i answers %i", async (now, amount, status) => {
        await h.control.setClock({ now });
        const res = await api.post("/payout", payoutBody({ amount }));
        const dayOk = now.startsWith("2030-03-12T22:59");
        expect(res.status).toBe(dayOk ? 201 : status);
        if (res.status === 400) expect(res.body.code).toBe("BEYOND_LIMITS");
      });

      it("refuses a second payout with the same referenceId", async () => {
        const body = payoutBody();
        await api.post("/payout", body);
        const again = await api.post("/payout", body);
        expect(again).toMatchObject({
          status: 400,
          body: { code: "INVALID_DATA", details: [{ path: "referenceId" }] },
        });
      });

      it("resolves every seeded key type and keys registered through the control API", async () => {
        for (const [pixKey, pixKeyType] of [
          ["12345678909", "CPF"],
          ["63457288622653", "CNPJ"],
          ["12ABC34501DE35", "CNPJ"],
          ["+5511987654321", "PHONE"],
          ["37A82FF3-0D9B-457B-9C01-242BD2CDF498", "EVP"],
          ["Maria.Santos@Example.com", "EMAIL"],
        ]) {
          expect((await api.post("/payout", payoutBody({ pixKey, pixKeyType }))).status).toBe(201);
        }
        const key = "novo@cliente.com.br";
        await h.control.updateAccount(h.account.accountId, { pixDirectory: "strict" });
        expect((await api.post("/payout", payoutBody({ pixKey: key }))).body.code).toBe("INVALID_PIX_KEY");
        await h.control.registerPixKey({ key, type: "EMAIL", name: "Cliente Novo", document: "52998224725" });
        expect((await api.post("/payout", payoutBody({ pixKey: key }))).body).toMatchObject({
          beneficiaryName: "Cliente Novo",
        });
        await expect(h.control.registerPixKey({ key: "nope", type: "EMAIL" })).rejects.toMatchObject({
          code: "INVALID_PIX_KEY",
        });
      });
    });

    describe("GET /payout (docs/decisions/listing-payouts.md)", () => {
      it("lists newest first with exact meta and filters", async () => {
        const keys = await h.control.createAccount({ balance: 1_000_000 });
        const a = apiOf(h, keys);
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) {
          if (i === 6) await h.control.setClock({ advanceMs: 86_400_000 });
          ids.push((await a.post("/payout", payoutBody({ amount: 1_000 + i }))).body.id);
        }
        await h.control.advancePayout(ids[3]!);
        const first = await a.get("/payout");
        expect(first.body.meta).toEqual({ total: 12, page: 1, limit: 10, totalPages: 2 });
        expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([...ids].reverse().slice(0, 10));
        expect(first.body.data[0]).not.toHaveProperty("bankReceipt");
        const second = await a.get("/payout?page=2&limit=10");
        expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[1], ids[0]]);
        const past = await a.get("/payout?page=5&limit=5");
        expect(past.body).toEqual({ data: [], meta: { total: 12, page: 5, limit: 5, totalPages: 3 } });
        const processing = await a.get("/payout?status=PROCESSING");
        expect(processing.body.data.map((p: { id: string }) => p.id)).toEqual([ids[3]]);
        expect(processing.body.meta.total).toBe(1);
        const pending = await a.get("/payout?status=PENDING&limit=3&page=2");
        expect(pending.body.meta).toEqual({ total: 11, page: 2, limit: 3, totalPages: 4 });
        expect(pending.body.data.map((p: { id: string }) => p.id)).toEqual([ids[8], ids[7], ids[6]]);
        const day1 = await a.get("/payout?endDate=2030-03-12");
        expect(day1.body.meta.total).toBe(6);
        const day2 = await a.get("/payout?startDate=2030-03-13T00:00:00Z&status=PENDING");
        expect(day2.body.meta.total).toBe(6);
        const empty = await (await apiOf(h, await h.control.createAccount())).get("/payout");
        expect(empty.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 10, totalPages: 0 } });
      });

      it("reads startDate and endDate as RFC 3339 allows, to the millisecond", async () => {
        const a = apiOf(h, await h.control.createAccount({ balance: 1_000_000 }));
        // The clock moves on with real time once set: a minute is room enough for a loaded machine.
        await h.control.setClock({ now: "2030-03-12T23:59:00.000Z" });
        const before = (await a.post("/payout", payoutBody())).body.id;
        await h.control.setClock({ now: "2030-03-13T00:00:00.000Z" });
        const after = (await a.post("/payout", payoutBody())).body.id;
        const ids = async (query: string) => {
          const res = await a.get(`/payout?${query}`);
          expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
          return res.body.data.map((p: { id: string }) => p.id);
        };
        // a leap second lies between the last millisecond of a day and the first of the next
        expect(await ids("endDate=2030-03-12T23:59:60Z")).toEqual([before]);
        expect(await ids("startDate=2030-03-12T23:59:60Z")).toEqual([after]);
        // ten fraction digits, lowercase t and z: each bound rounds toward the inside of its range
        expect(await ids("startDate=2030-03-12t23:59:59.9999999999z")).toEqual([after]);
        expect(await ids("endDate=2030-03-12T23:59:59.9999999999Z")).toEqual([before]);
        // an offset, with its sign encoded
        expect(await ids(`endDate=${encodeURIComponent("2030-03-12T20:59:59.999-03:00")}`)).toEqual([before]);
        expect(await ids(`startDate=${encodeURIComponent("2030-03-13T05:30:00+05:30")}`)).toEqual([after]);
      });

      it.each([
        ["startDate=2030-02-30T00:00:00Z", "startDate"],
        ["endDate=2030-02-29", "endDate"],
        ["startDate=2030-03-12T12:00:60Z", "startDate"],
      ])(
        "refuses ?%s, a moment that does not exist, with 400 INVALID_DATA naming %s",
        async (query, path) => {
          const res = await api.get(`/payout?${query}`);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({
            code: "INVALID_DATA",
            details: [{ path, message: expect.stringContaining("that exists") }],
          });
        },
      );

      it.each([
        ["limit=0", "limit"],
        ["limit=101", "limit"],
        ["page=0", "page"],
        ["page=1.5", "page"],
        ["page=abc", "page"],
        ["status=DONE", "status"],
        ["startDate=yesterday", "startDate"],
        ["color=blue", "color"],
      ])("refuses ?%s with 400 INVALID_DATA naming %s", async (query, path) => {
        const res = await api.get(`/payout?${query}`);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: "INVALID_DATA", details: [{ path }] });
      });
    });

    describe("control API and faults (docs/decisions/mock-control-api.md, docs/decisions/faults.md)", () => {
      it("a status fault answers without running the handler, `times` times", async () => {
        await h.control.addFault({ method: "POST", path: "/payout", status: 503, times: 2 });
        const body = payoutBody();
        expect(await api.post("/payout", body)).toMatchObject({
          status: 503,
          body: { code: "INTERNAL_ERROR" },
        });
        expect(await api.post("/payout", body)).toMatchObject({ status: 503 });
        expect((await api.get(`/payout?referenceId=${body.referenceId}`)).body.meta.total).toBe(0);
        expect((await api.post("/payout", body)).status).toBe(201);
      });

      it("a prefix fault with a code and 429 carries Retry-After", async () => {
        await h.control.addFault({ path: "/payin*", status: 429 });
        const res = await api.get("/payin/pi_x");
        expect(res).toMatchObject({ status: 429, body: { code: "RATE_LIMITED" } });
        expect(res.headers.get("retry-after")).toBe("1");
        await h.control.addFault({ path: "/payin", status: 502, code: "PROVIDER_ERROR" });
        expect(await api.post("/payin", pixPayin())).toMatchObject({
          status: 502,
          body: { code: "PROVIDER_ERROR" },
        });
      });

      it("dropResponse runs the handler, keeps its effect, and cuts the answer", async () => {
        await h.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
        const body = payoutBody();
        expect((await api.post("/payout", body)).status).toBe(0);
        const found = await api.get(`/payout?referenceId=${body.referenceId}`);
        expect(found.body.data).toHaveLength(1);
      });

      it("latencyMs delays the handler; clearFaults removes every fault", async () => {
        await h.control.addFault({ path: "/payout", latencyMs: 30 });
        const started = Date.now();
        expect((await api.get("/payout")).status).toBe(200);
        expect(Date.now() - started).toBeGreaterThanOrEqual(25);
        await h.control.addFault({ path: "/payout", status: 500, times: 5 });
        expect(await h.control.faults()).toHaveLength(1);
        await h.control.clearFaults();
        expect((await api.get("/payout")).status).toBe(200);
      });

      it("the rate limit answers 429 RATE_LIMITED with Retry-After when switched on", async () => {
        await h.control.setRateLimit({ limit: 2, windowMs: 60_000 });
        expect((await api.get("/payout")).status).toBe(200);
        expect((await api.get("/payout")).status).toBe(200);
        const limited = await api.get("/payout");
        expect(limited).toMatchObject({ status: 429, body: { code: "RATE_LIMITED" } });
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
        await h.control.setRateLimit(null);
        expect((await api.get("/payout")).status).toBe(200);
      });

      it("reset returns to the start state with the same default keys", async () => {
        await api.post("/payout", payoutBody());
        const extra = await h.control.createAccount();
        await h.control.setClock({ advanceMs: 86_400_000 });
        await h.control.reset();
        expect((await api.get("/payout")).body.meta.total).toBe(0);
        expect((await h.control.getAccount(h.account.accountId)).balance.available).toBe(1_000_000);
        await expect(h.control.getAccount(extra.accountId)).rejects.toMatchObject({ status: 404 });
        const clock = await h.control.clock();
        expect(Math.abs(Date.parse(clock.now) - Date.now())).toBeLessThan(5_000);
      });

      it("refuses bad control input with INVALID_DATA", async () => {
        await expect(h.control.createAccount({ balance: -1 })).rejects.toMatchObject({
          status: 400,
          code: "INVALID_DATA",
        });
        await expect(h.control.setClock({ advanceMs: -5 })).rejects.toMatchObject({ code: "INVALID_DATA" });
        await expect(h.control.addFault({ path: "no-slash" })).rejects.toMatchObject({
          code: "INVALID_DATA",
        });
      });

      it("shows settings and balance, never the webhook secret", async () => {
        const keys = await h.control.createAccount({
          webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          balance: 123,
        });
        const view = await h.control.getAccount(keys.accountId);
        expect(view).toMatchObject({
          kycApproved: true,
          creditCardEnabled: true,
          payoutApproval: "automatic",
          autoAdvance: false,
          webhookSigned: true,
        });
        expect(view.balance).toEqual({ available: 123, reserved: 0, pending: 0 });
        expect(JSON.stringify(view)).not.toContain("whsec_");
        const updated = await h.control.updateAccount(keys.accountId, { kycApproved: false });
        expect(updated.kycApproved).toBe(false);
      });
    });

    describe("post-order 3DS through the mock acquirer (docs/decisions/three-ds.md)", () => {
      it("serves the SDK script and the challenge page; the session must match the transaction", async () => {
        const created = await api.post(
          "/payin",
          cardPayin("4000000000003220", { webhookUrl: "http://127.0.0.1:9/hook" }),
        );
        const script = (await h.send("/_mock/acquirer/three-ds.js")) as Response;
        expect(script.headers.get("content-type")).toContain("application/javascript");
        const source = await script.text();
        expect(source).toContain("globalThis.AcquirerThreeDS");
        expect(source).toContain(JSON.stringify(new URL(h.base).origin));
        const tx = created.body.threeDSecureTransactionId;
        const page = (await h.send(
          `/_mock/acquirer/challenge?tx=${tx}&origin=${encodeURIComponent("https://shop.example")}`,
        )) as Response;
        expect(page.status).toBe(200);
        expect(page.headers.get("content-security-policy")).toBe("frame-ancestors https://shop.example");
        const html = await page.text();
        expect(html).toContain('"https://shop.example"');
        expect(html).not.toContain(created.body.threeDSecureSession);
        const post = (body: unknown) =>
          h.send("/_mock/acquirer/challenge", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
        const wrong = (await post({ tx, session: "x".repeat(32), action: "approve" })) as Response;
        expect(wrong.status).toBe(400);
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("PENDING_3DS");
        const right = (await post({
          tx,
          session: created.body.threeDSecureSession,
          action: "approve",
        })) as Response;
        expect(await right.json()).toEqual({ outcome: "AUTHENTICATED", status: "APPROVED" });
        const twice = (await post({
          tx,
          session: created.body.threeDSecureSession,
          action: "reject",
        })) as Response;
        expect(await twice.json()).toEqual({ outcome: "AUTHENTICATED", status: "APPROVED" });
        const webhooks = await h.control.webhooks(h.account.accountId);
        expect(webhooks.filter((w) => w.resourceId === created.body.id).map((w) => w.status)).toEqual([
          "APPROVED",
        ]);
      });

      it("refuses a challenge page for an unknown transaction or a bad parent origin", async () => {
        const created = await api.post("/payin", cardPayin("4000000000003220"));
        const tx = created.body.threeDSecureTransactionId;
        expect(
          ((await h.send(`/_mock/acquirer/challenge?tx=nope&origin=https%3A%2F%2Fa.b`)) as Response).status,
        ).toBe(404);
        expect(((await h.send(`/_mock/acquirer/challenge?tx=${tx}&origin=null`)) as Response).status).toBe(
          400,
        );
        expect(
          ((await h.send(`/_mock/acquirer/challenge?tx=${tx}&origin=https%3A%2F%2Fa.b%2Fpath`)) as Response)
            .status,
        ).toBe(400);
        expect(await h.control.completeThreeDS(created.body.id, "REJECTED")).toMatchObject({
          status: "REFUSED",
        });
      });

      it("expires a PENDING_3DS payin 15 minutes after creation on the mock clock, with its EXPIRED webhook", async () => {
        const created = await api.post(
          "/payin",
          cardPayin("4000000000003220", { webhookUrl: "http://127.0.0.1:9/hook" }),
        );
        // a minute short of it: the mock clock moves on with real time, which a busy machine makes long
        await h.control.setClock({ advanceMs: 14 * 60_000 });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("PENDING_3DS");
        await h.control.setClock({ advanceMs: 60_000 });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("EXPIRED");
        const webhooks = await h.control.webhooks(h.account.accountId);
        expect(webhooks.filter((w) => w.resourceId === created.body.id).map((w) => w.status)).toEqual([
          "EXPIRED",
        ]);
        await expect(h.control.completeThreeDS(created.body.id, "AUTHENTICATED")).rejects.toMatchObject({
          code: "INVALID_DATA",
          message: expect.stringContaining("EXPIRED"),
        });
      });

      it("does not expire a challenge decided in time", async () => {
        const created = await api.post("/payin", cardPayin("4000000000003220"));
        await h.control.completeThreeDS(created.body.id, "AUTHENTICATED");
        await h.control.setClock({ advanceMs: 60 * 60_000 });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("APPROVED");
      });

      const ORIGIN = "https://shop.example";
      it.each([
        ["an unknown transaction (stale 201)", "CHALLENGE_UNAVAILABLE", 404, "unknown", "indisponível"],
        ["an approved payin", "CHALLENGE_UNAVAILABLE", 409, "decided", "já concluída"],
        ["an expired payin", "CHALLENGE_EXPIRED", 410, "expired", "expirada"],
      ] as const)(
        "never opens the challenge of %s: the page says why and reports %s to its parent (HTTP %i)",
        async (_, code, status, state, title) => {
          const created = await api.post("/payin", cardPayin("4000000000003220"));
          if (state === "decided") await h.control.completeThreeDS(created.body.id, "AUTHENTICATED");
          if (state === "expired") await h.control.setClock({ advanceMs: 15 * 60_000 });
          const tx = state === "unknown" ? "3ds_unknown" : created.body.threeDSecureTransactionId;
          const page = (await h.send(
            `/_mock/acquirer/challenge?tx=${tx}&origin=${encodeURIComponent(ORIGIN)}`,
          )) as Response;
          expect(page.status).toBe(status);
          expect(page.headers.get("content-type")).toContain("text/html");
          expect(page.headers.get("content-security-policy")).toBe(`frame-ancestors ${ORIGIN}`);
          const html = await page.text();
          expect(html).toContain(title);
          expect(html).not.toContain('id="approve"');
          expect(html).toContain(`"type":"error","code":"${code}"`);
          expect(html).toContain(`, "${ORIGIN}");`);
        },
      );

      it("refuses a decision on an expired challenge with 410 CHALLENGE_EXPIRED and on an unknown one with 404", async () => {
        const created = await api.post("/payin", cardPayin("4000000000003220"));
        const decide = (tx: string) =>
          h.send("/_mock/acquirer/challenge", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ tx, session: created.body.threeDSecureSession, action: "approve" }),
          }) as Promise<Response>;
        const unknown = await decide("3ds_unknown");
        expect(unknown.status).toBe(404);
        expect(await unknown.json()).toMatchObject({ code: "CHALLENGE_UNAVAILABLE" });
        await h.control.setClock({ advanceMs: 15 * 60_000 });
        const late = await decide(created.body.threeDSecureTransactionId);
        expect(late.status).toBe(410);
        expect(await late.json()).toMatchObject({ code: "CHALLENGE_EXPIRED" });
        expect((await api.get(`/payin/${created.body.id}`)).body.status).toBe("EXPIRED");
      });
    });

    it("never stores or echoes a card number", async () => {
      const number = "4111111111111111";
      const created = await api.post("/payin", cardPayin(number, { webhookUrl: "http://127.0.0.1:9/hook" }));
      const record = await api.get(`/payin/${created.body.id}`);
      expect(JSON.stringify(record.body)).not.toContain(number);
      expect(JSON.stringify(record.body)).not.toContain('123"');
      void ref;
    });
  });

  // Requests the mock refuses before they change anything: they share one mock (a fresh store per
  // test would only start and compare servers).
  describe(`requests the mock refuses, over ${transport}`, () => {
    let h: Harness;
    beforeAll(async () => {
      await warmStore(transport);
      h = await startHarness(transport, { autoAdvance: false });
    }, 120_000);
    afterAll(() => h?.close());

    describe("authentication (spec: Authentication; docs/decisions/authentication.md)", () => {
      it.each([
        ["no Authorization header", undefined],
        ["a wrong secret key", "wrong"],
        ["not Basic", "bearer"],
      ])("answers 401 UNAUTHORIZED for %s", async (_, variant) => {
        const headers: Record<string, string> = {};
        if (variant === "wrong")
          headers.authorization = basic({ publicKey: h.account.publicKey, secretKey: "sk_test_nope" });
        if (variant === "bearer") headers.authorization = `Bearer ${h.account.secretKey}`;
        const res = await h.send("/payout", { headers });
        expect(res).not.toBe("dropped");
        const r = res as Response;
        expect(r.status).toBe(401);
        expect(await r.json()).toMatchObject({ code: "UNAUTHORIZED" });
      });
    });

    describe("bad requests never crash the mock (docs/decisions/error-body.md)", () => {
      const auth = () => ({ authorization: basic(h.account) });
      it.each([
        ["malformed JSON", "{not json", "application/json", 400, "INVALID_DATA"],
        ["a JSON array", "[]", "application/json", 400, "INVALID_DATA"],
        ["JSON null", "null", "application/json", 400, "INVALID_DATA"],
        ["no content type", JSON.stringify({}), "", 415, "UNSUPPORTED_MEDIA_TYPE"],
        ["text/plain", JSON.stringify({}), "text/plain", 415, "UNSUPPORTED_MEDIA_TYPE"],
      ])("POST /payin with %s answers %i %s", async (_, body, type, status, code) => {
        const headers: Record<string, string> = auth();
        if (type) headers["content-type"] = type;
        const res = (await h.send("/payin", { method: "POST", headers, body })) as Response;
        expect(res.status).toBe(status);
        expect(await res.json()).toMatchObject({ code });
      });

      it("answers 413 PAYLOAD_TOO_LARGE to a body over 1 MiB", async () => {
        const body = JSON.stringify({ ...pixPayin(), pad: "x".repeat(1024 * 1024 + 10) });
        const res = (await h.send("/payin", {
          method: "POST",
          headers: { ...auth(), "content-type": "application/json" },
          body,
        })) as Response;
        expect(res.status).toBe(413);
        expect(await res.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      });

      it.each([
        ["GET", "/nothing-here", 404, "NOT_FOUND"],
        ["GET", "/payout/po_123", 404, "NOT_FOUND"],
        ["DELETE", "/payin", 405, "METHOD_NOT_ALLOWED"],
        ["PUT", "/payout", 405, "METHOD_NOT_ALLOWED"],
        ["GET", "/payin/pi_unknown", 404, "NOT_FOUND"],
      ])("%s %s answers %i %s", async (method, path, status, code) => {
        const res = (await h.send(path, { method, headers: auth() })) as Response;
        expect(res.status).toBe(status);
        expect(await res.json()).toMatchObject({ code });
        if (status === 405) expect(res.headers.get("allow")).toBeTruthy();
      });
    });
  });
}
