export { Payins } from "./payins.js";
export { Payouts } from "./payouts.js";
export { type ConfirmedRecord, Webhooks } from "./webhooks.js";
