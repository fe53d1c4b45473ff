// The account gate lets one transaction of a process at a time into the database's queue for an
// account's row lock (src/stores/sql/account-gate.ts): in the order they came, one account not
// holding up another, and nothing kept once an account's last transaction leaves.
import { describe, expect, it } from "vitest";
import { AccountGate } from "../src/stores/sql/account-gate.js";

describe("AccountGate", () => {
  it("lets transactions through one at a time, in the order they came", async () => {
    const gate = new AccountGate();
    const order: string[] = [];
    const turn = async (name: string, holdMs: number) => {
      const leave = await gate.enter("acc_1");
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      order.push(`${name} out`);
      leave();
    };
    await Promise.all([turn("a", 20), turn("b", 1), turn("c", 5)]);
    expect(order).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
  });

  it("does not hold one account's transactions up for another's", async () => {
    const gate = new AccountGate();
    const leaveFirst = await gate.enter("acc_1");
    // resolves although acc_1's turn is still taken
    const leaveSecond = await gate.enter("acc_2");
    expect([gate.busy("acc_1"), gate.busy("acc_2")]).toEqual([true, true]);
    leaveFirst();
    leaveSecond();
  });

  it("keeps nothing once an account's last transaction left", async () => {
    const gate = new AccountGate();
    const first = await gate.enter("acc_1");
    const second = gate.enter("acc_1");
    first();
    (await second)();
    expect(gate.busy("acc_1")).toBe(false);
  });
});
