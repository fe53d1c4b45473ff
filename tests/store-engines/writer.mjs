// A child process for the kill -9 test: inserts payins one transaction at a time and prints each id
// after its commit returned (what the mock would have answered 201 for).
import { ENGINES, payinRow } from "./engines.mjs";

const [engine, dir, from] = process.argv.slice(2);
const db = await ENGINES[engine](dir);
process.stdout.write("ready\n");
for (let n = Number(from); ; n++) {
  await db.insert(payinRow("acct_kill", n));
  process.stdout.write(`${n}\n`);
}
