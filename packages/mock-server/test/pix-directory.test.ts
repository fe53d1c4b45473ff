// docs/decisions/magic-values.md: the PIX key directory is open. Every well-formed key whose type
// matches pixKeyType is found, except notfound@bank.test; its holder is derived from the key, the same
// key always giving the same beneficiary; seeded keys keep their holders. Strict is opt-in.
import { isValidCnpj, isValidCpf } from "@paykit/contract";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { derivedHolder } from "../src/domain/pix-directory.js";
import { warmStore } from "./durable-harness.js";
import { apiOf, type Harness, payoutBody, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

describe.each(TRANSPORTS_AND_STORES)("the PIX key directory over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  let h: Harness;
  let api: ReturnType<typeof apiOf>;
  beforeEach(async () => {
    h = await startHarness(transport, { autoAdvance: false });
    api = apiOf(h);
    await h.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
  });
  afterEach(() => h.close());

  it.each([
    ["a merchant's own CPF", "52998224725", "CPF"],
    ["a CNPJ", "11444777000161", "CNPJ"],
    ["an alphanumeric CNPJ", "ZX3Y7K5Q000147", "CNPJ"],
    ["an e-mail", "financeiro@minhaloja.com.br", "EMAIL"],
    ["a phone", "+5511912345678", "PHONE"],
    ["an EVP", "9f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "EVP"],
  ])("finds %s with a derived holder, the same on every payout", async (_, pixKey, pixKeyType) => {
    const first = await api.post("/payout", payoutBody({ pixKey, pixKeyType }));
    const second = await api.post("/payout", payoutBody({ pixKey, pixKeyType }));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    const { beneficiaryName, beneficiaryDocument } = first.body;
    expect(second.body).toMatchObject({ beneficiaryName, beneficiaryDocument });
    expect(beneficiaryName).toMatch(/^\p{L}+( \p{L}+)+$/u);
    expect(isValidCpf(beneficiaryDocument) || isValidCnpj(beneficiaryDocument)).toBe(true);
    // A CPF or CNPJ key holds its own document.
    if (pixKeyType === "CPF" || pixKeyType === "CNPJ") expect(beneficiaryDocument).toBe(pixKey);
  });

  it("does not find notfound@bank.test (any case)", async () => {
    for (const pixKey of ["notfound@bank.test", "NotFound@Bank.Test"]) {
      const res = await api.post("/payout", payoutBody({ pixKey, pixKeyType: "EMAIL" }));
      expect(res).toMatchObject({
        status: 400,
        body: { code: "INVALID_PIX_KEY", details: [{ path: "pixKey" }] },
      });
    }
  });

  it("keeps the seeded holders, and the beneficiary sent by the merchant", async () => {
    const seeded = await api.post("/payout", payoutBody({ pixKey: "maria.santos@example.com" }));
    expect(seeded.body).toMatchObject({
      beneficiaryName: "Maria Santos",
      beneficiaryDocument: "46482432344",
    });
    const sent = await api.post(
      "/payout",
      payoutBody({
        pixKey: "a@b.com.br",
        beneficiaryName: "Quem Enviou",
        beneficiaryDocument: "52998224725",
      }),
    );
    expect(sent.body).toMatchObject({ beneficiaryName: "Quem Enviou", beneficiaryDocument: "52998224725" });
  });

  it("a strict account finds only seeded and registered keys", async () => {
    const keys = await h.control.createAccount({ balance: 100_000, pixDirectory: "strict" });
    expect((await h.control.getAccount(keys.accountId)).pixDirectory).toBe("strict");
    const strict = apiOf(h, keys);
    const own = payoutBody({ pixKey: "financeiro@minhaloja.com.br" });
    expect((await strict.post("/payout", own)).body.code).toBe("INVALID_PIX_KEY");
    expect((await strict.post("/payout", payoutBody({ pixKey: "payouts@example.com" }))).status).toBe(201);
    await h.control.registerPixKey({ key: "financeiro@minhaloja.com.br", type: "EMAIL", name: "Loja" });
    expect((await strict.post("/payout", own)).body).toMatchObject({ beneficiaryName: "Loja" });
  });

  it("a key registered for one account is found by its payouts alone, and goes with the account's reset", async () => {
    const mine = await h.control.createAccount({ balance: 100_000, pixDirectory: "strict" });
    const theirs = await h.control.createAccount({ balance: 100_000, pixDirectory: "strict" });
    const key = { key: "caixa@loja-do-time.com.br", type: "EMAIL" as const, name: "Caixa do Time" };
    const entry = await h.control.registerPixKey({ ...key, accountId: mine.accountId });
    expect(entry).toMatchObject({ ...key, accountId: mine.accountId });
    const toKey = payoutBody({ pixKey: key.key, pixKeyType: "EMAIL" });
    expect((await apiOf(h, mine).post("/payout", toKey)).body).toMatchObject({
      beneficiaryName: "Caixa do Time",
    });
    expect((await apiOf(h, theirs).post("/payout", toKey)).body.code).toBe("INVALID_PIX_KEY");
    // An open account finds every well-formed key anyway, but never with another account's holder.
    const open = (await apiOf(h).post("/payout", toKey)).body;
    expect(open.status).toBe("PENDING");
    expect(open.beneficiaryName).not.toBe("Caixa do Time");

    expect((await h.control.pixKeys(mine.accountId)).map((k) => k.key)).toContain(key.key);
    expect((await h.control.pixKeys(theirs.accountId)).map((k) => k.key)).not.toContain(key.key);
    expect((await h.control.pixKeys()).map((k) => k.key)).not.toContain(key.key);

    await h.control.resetAccount(mine.accountId);
    expect((await h.control.pixKeys(mine.accountId)).map((k) => k.key)).not.toContain(key.key);
    expect((await apiOf(h, mine).post("/payout", toKey)).body.code).toBe("INVALID_PIX_KEY");
    await expect(h.control.registerPixKey({ ...key, accountId: "acct_nobody" })).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe("the directory's default mode", () => {
  it("is strict for every account with strictPixDirectory (the CLI's --strict-pix-directory); an account may open it", async () => {
    const h = await startHarness("engine", { autoAdvance: false, strictPixDirectory: true });
    try {
      await h.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
      const api = apiOf(h);
      expect((await h.control.getAccount(h.account.accountId)).pixDirectory).toBe("strict");
      expect((await api.post("/payout", payoutBody({ pixKey: "x@y.com.br" }))).body.code).toBe(
        "INVALID_PIX_KEY",
      );
      await h.control.updateAccount(h.account.accountId, { pixDirectory: "open" });
      expect((await api.post("/payout", payoutBody({ pixKey: "x@y.com.br" }))).status).toBe(201);
    } finally {
      await h.close();
    }
  });

  it("derives valid, stable, varied holders (10,000 keys)", () => {
    const names = new Set<string>();
    for (let i = 0; i < 10_000; i += 1) {
      const holder = derivedHolder("EMAIL", `cliente${i}@example.com`);
      expect(isValidCpf(holder.document)).toBe(true);
      expect(holder.ispb).toMatch(/^\d{8}$/);
      names.add(holder.name);
    }
    expect(names.size).toBeGreaterThan(1_000);
    expect(derivedHolder("EVP", "9F1C2A7E-3B4D-4E5F-8A9B-0C1D2E3F4A5B")).toEqual({
      ...derivedHolder("EVP", "9f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"),
      key: "9F1C2A7E-3B4D-4E5F-8A9B-0C1D2E3F4A5B",
    });
  });
});
