import { buildBrCode, crc16Ccitt, PayinCreateParams, parseBrCode, validate } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { Account, Authenticator } from "../src/domain/accounts.js";
import { MockClock } from "../src/domain/clock.js";
import { randomString, UlidFactory } from "../src/domain/ids.js";
import { PayinIndex } from "../src/domain/payin-index.js";
import { PayinRecord, recordStatus, storedJson } from "../src/domain/records.js";
import { Scheduler } from "../src/domain/scheduler.js";

const CROCKFORD_ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const T0 = Date.UTC(2026, 0, 31, 12);

function payin(id: string): PayinRecord {
  const order = { customer: { name: "Maria", document: "1", email: "m@x.io", phone: "55" }, items: [] };
  return new PayinRecord(
    id,
    "acct_1",
    "acq_x",
    "order-1",
    "PIX",
    10_000,
    storedJson(order),
    null,
    T0,
    "PENDING",
  );
}

describe("ULIDs and random strings", () => {
  it("gives the prefix, then 10 time characters and 16 random ones, strictly increasing within one millisecond", () => {
    const ids = new UlidFactory();
    const issued = Array.from({ length: 2000 }, () => ids.next(T0, "pi_"));
    for (const id of issued) {
      expect(id.startsWith("pi_")).toBe(true);
      expect(id.slice(3)).toMatch(CROCKFORD_ULID);
      expect(id.slice(3, 13)).toBe(issued[0]!.slice(3, 13));
    }
    expect([...issued].sort()).toEqual(issued);
    expect(new Set(issued).size).toBe(issued.length);
  });

  it("moves the time part with the clock and keeps ids of later milliseconds greater", () => {
    const ids = new UlidFactory();
    const earlier = ids.next(T0);
    const later = ids.next(T0 + 1);
    expect(later > earlier).toBe(true);
    expect(later.slice(0, 10)).not.toBe(earlier.slice(0, 10));
    expect(ids.next(T0 + 1) > later).toBe(true);
  });

  it.each([
    [24, undefined, "acq_"],
    [32, undefined, ""],
    [11, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", "E"],
  ])("draws %i characters of the alphabet after the prefix %#", (length, alphabet, prefix) => {
    const allowed = alphabet ?? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const values = Array.from({ length: 200 }, () => randomString(length, alphabet, prefix));
    for (const value of values) {
      expect(value.startsWith(prefix)).toBe(true);
      expect(value).toHaveLength(prefix.length + length);
      for (const char of value.slice(prefix.length)) expect(allowed).toContain(char);
    }
    expect(new Set(values).size).toBe(values.length);
  });
});

describe("the order a payin keeps", () => {
  it("stores the validated order as JSON.stringify writes it", () => {
    const body = {
      paymentMethod: "PIX",
      amount: 10_000,
      referenceId: "order-1",
      isPhysicalProduct: false,
      payerIp: "200.100.50.25",
      items: [{ unitPrice: 10_000, quantity: 1, title: "Plano mensal" }],
      customer: {
        phone: "5511987654321",
        name: "Maria da Silva",
        document: "12345678909",
        email: "maria@example.com",
        address: {
          street: "Rua Augusta",
          number: "100",
          zipCode: "01305000",
          city: "São Paulo",
          state: "SP",
        },
      },
    };
    const result = validate(PayinCreateParams, body);
    if (!result.success) throw new Error(result.message);
    const order = { customer: result.data.customer, items: result.data.items };
    expect(storedJson(order)).toBe(JSON.stringify(order));
  });
});

describe("a record's updatedAt", () => {
  it("is its creation time until it moves, then the time of its last move", () => {
    const record = payin("pi_01KAKQ6YQ1W3M0G4GQYX8V4D2B");
    expect(record.updatedAt).toBe(T0);
    recordStatus(record, "APPROVED", T0 + 5);
    expect(record.updatedAt).toBe(T0 + 5);
    expect(record.transitions).toEqual([
      { status: "PENDING", at: T0 },
      { status: "APPROVED", at: T0 + 5 },
    ]);
  });
});

describe("the payin index", () => {
  it("finds every payin by id, many per millisecond and across milliseconds, and nothing else", () => {
    const ids = new UlidFactory();
    const index = new PayinIndex();
    const records: PayinRecord[] = [];
    for (let ms = 0; ms < 20; ms++)
      for (let i = 0; i < (ms % 4) * 7 + 1; i++)
        records.push(payin(ids.next(T0 + (ms % 7) * 1000 + ms, "pi_")));
    for (const record of records) index.add(record);
    for (const record of records) expect(index.get(record.id)).toBe(record);
    const last = records.at(-1)!.id;
    for (const missing of [
      "",
      "pi_",
      "pi_ILLEGAL000000000000000000",
      `${last.slice(0, -1)}!`,
      `x${last}`,
      last.toLowerCase(),
    ])
      expect(index.get(missing)).toBeUndefined();
    index.clear();
    expect(index.get(records[0]!.id)).toBeUndefined();
  });
});

describe("the scheduler's lanes", () => {
  it("runs lane items and tasks together in moment order, ties in scheduling order", () => {
    let now = T0;
    const scheduler = new Scheduler(new MockClock(() => now));
    const ran: string[] = [];
    const lane = scheduler.lane((name: string) => ran.push(name));
    scheduler.scheduleIn(lane, T0 + 10, "lane-10");
    scheduler.schedule(T0 + 10, () => ran.push("task-10"));
    scheduler.scheduleIn(lane, T0 + 10, "lane-10b");
    scheduler.schedule(T0 + 5, () => ran.push("task-5"));
    scheduler.scheduleIn(lane, T0 + 20, "lane-20");
    // The clock was set back: out of the lane's order, the item still runs at its moment.
    scheduler.scheduleIn(lane, T0 + 15, "lane-15");
    now = T0 + 9;
    scheduler.runDue();
    expect(ran).toEqual(["task-5"]);
    now = T0 + 30;
    scheduler.runDue();
    expect(ran).toEqual(["task-5", "lane-10", "task-10", "lane-10b", "lane-15", "lane-20"]);
    scheduler.stop();
  });

  it("keeps thousands of items in order across compactions, and clear() drops them", () => {
    let now = T0;
    const scheduler = new Scheduler(new MockClock(() => now));
    const ran: number[] = [];
    const lane = scheduler.lane((i: number) => ran.push(i));
    for (let i = 0; i < 5000; i++) scheduler.scheduleIn(lane, T0 + i, i);
    now = T0 + 2999;
    scheduler.runDue();
    for (let i = 5000; i < 6000; i++) scheduler.scheduleIn(lane, T0 + i, i);
    now = T0 + 10_000;
    scheduler.runDue();
    expect(ran).toEqual(Array.from({ length: 6000 }, (_, i) => i));
    scheduler.scheduleIn(lane, T0 + 20_000, -1);
    scheduler.clear();
    now = T0 + 30_000;
    scheduler.runDue();
    expect(ran).toHaveLength(6000);
    scheduler.stop();
  });
});

describe("the Basic auth check", () => {
  const basic = (pk: string, sk: string) => `Basic ${btoa(`${pk}:${sk}`)}`;

  it("accepts a remembered header only while its account is the live one, and checks KYC every time", () => {
    const accounts = new Map<string, Account>();
    const auth = new Authenticator(accounts);
    const account = new Account("acct_1", "pk_test_a", "sk_test_a", {});
    accounts.set(account.publicKey, account);
    const header = basic("pk_test_a", "sk_test_a");
    expect(auth.authenticate(header)).toBe(account);
    expect(auth.authenticate(header)).toBe(account);
    account.kycApproved = false;
    expect(() => auth.authenticate(header)).toThrow(expect.objectContaining({ code: "KYC_NOT_APPROVED" }));
    account.kycApproved = true;
    // A reset opens a new account with the same keys: the remembered one no longer counts.
    accounts.clear();
    expect(() => auth.authenticate(header)).toThrow(expect.objectContaining({ code: "UNAUTHORIZED" }));
    const reopened = new Account("acct_1", "pk_test_a", "sk_test_a", {});
    accounts.set(reopened.publicKey, reopened);
    expect(auth.authenticate(header)).toBe(reopened);
  });

  it.each([
    ["a wrong secret", basic("pk_test_a", "sk_test_b")],
    ["an unknown key", basic("pk_test_z", "sk_test_a")],
    ["no header", undefined],
    ["a Bearer token", "Bearer sk_test_a"],
  ])("refuses %s, also after many accepted headers", (_, header) => {
    const accounts = new Map<string, Account>();
    const auth = new Authenticator(accounts);
    for (let i = 0; i < 100; i++) {
      const account = new Account(`acct_${i}`, `pk_test_${i}`, `sk_test_${i}`, {});
      accounts.set(account.publicKey, account);
      expect(auth.authenticate(basic(account.publicKey, account.secretKey))).toBe(account);
    }
    accounts.set("pk_test_a", new Account("acct_a", "pk_test_a", "sk_test_a", {}));
    expect(() => auth.authenticate(header)).toThrow(expect.objectContaining({ code: "UNAUTHORIZED" }));
  });
});

describe("BR Codes built again and again for the same merchants", () => {
  const keys = Array.from(
    { length: 20 },
    (_, i) => `${String(i).padStart(8, "0")}-0d9b-457b-9c01-242bd2cdf498`,
  );

  it("stay well-formed with a matching CRC for every merchant, in any order", () => {
    for (let round = 0; round < 3; round++) {
      for (const [i, pixKey] of keys.entries()) {
        const fields = {
          pixKey,
          merchantName: `Loja ${i}`,
          merchantCity: "São Paulo",
          amountCents: 100 + i,
          txid: `T${i}`,
        };
        const code = buildBrCode(fields);
        expect(crc16Ccitt(code.slice(0, -4))).toBe(code.slice(-4));
        expect(parseBrCode(code)).toMatchObject({ ...fields, merchantCity: "Sao Paulo" });
        expect(buildBrCode({ ...fields, amountCents: undefined })).toMatch(/^000201010211/);
      }
    }
  });

  it("still refuses a bad amount, txid, name or city of a merchant seen before", () => {
    const fields = {
      pixKey: keys[0]!,
      merchantName: "Loja",
      merchantCity: "Recife",
      amountCents: 100,
      txid: "T1",
    };
    buildBrCode(fields);
    expect(() => buildBrCode({ ...fields, amountCents: 0 })).toThrow(
      expect.objectContaining({ field: "amountCents" }),
    );
    expect(() => buildBrCode({ ...fields, txid: "no-dashes" })).toThrow(
      expect.objectContaining({ field: "txid" }),
    );
    expect(() => buildBrCode({ ...fields, merchantName: "✓" })).toThrow(
      expect.objectContaining({ field: "merchantName" }),
    );
    expect(() => buildBrCode({ ...fields, merchantCity: " " })).toThrow(
      expect.objectContaining({ field: "merchantCity" }),
    );
    expect(() => buildBrCode({ ...fields, pixKey: "not a key", amountCents: 0 })).toThrow(
      expect.objectContaining({ field: "pixKey" }),
    );
  });
});
