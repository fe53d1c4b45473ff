export { Payins } from "./payins.js";
export { Payouts } from "./payouts.js";
export { type ConfirmedRecord, type WebhookParseOptions, Webhooks } from "./webhooks.js";
