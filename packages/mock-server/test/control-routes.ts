// Every control route of the mock with whom it concerns (issue 15, isolation for teams), as the spec's
// tables would list it: `{account}`, `{payin}`, `{payout}` and `{delivery}` are filled with one account's
// resources. Used by the shared sandbox's table test and its property test.

/** Whom a row's call concerns: an account (`:account`, or the owner of `:payin`, `:payout`, `:delivery`), or everyone. */
export type Scope = "open" | "global" | "account" | "caller";

// Every control route, as the spec's tables would list it. `{A}` is filled with account A's resource.
export const ROUTES: [method: string, path: string, scope: Scope, body?: unknown][] = [
  ["POST", "/_mock/accounts", "open", {}],
  ["GET", "/_mock/accounts", "global"],
  ["GET", "/_mock/account", "caller"],
  ["GET", "/_mock/accounts/{account}", "account"],
  ["GET", "/_mock/accounts/{account}/clock", "account"],
  ["POST", "/_mock/accounts/{account}/clock", "account", { advanceMs: 3_600_000 }],
  ["POST", "/_mock/accounts/{account}/settings", "account", { kycApproved: true }],
  ["POST", "/_mock/accounts/{account}/webhook-secret", "account", {}],
  ["GET", "/_mock/accounts/{account}/webhook-secret", "account"],
  ["GET", "/_mock/accounts/{account}/listener", "account"],
  ["POST", "/_mock/accounts/{account}/listen", "account", { listener: "listener-of-a-test", detach: true }],
  ["GET", "/_mock/payins?accountId={account}", "account"],
  ["GET", "/_mock/payins", "global"],
  ["GET", "/_mock/payouts?accountId={account}", "account"],
  ["GET", "/_mock/payouts", "global"],
  ["POST", "/_mock/payins/{payin}/expire", "account"],
  ["POST", "/_mock/payins/{payin}/pay", "account"],
  ["POST", "/_mock/payins/{payin}/authorize", "account", { approve: true }],
  ["POST", "/_mock/payins/{payin}/three-ds", "account", { outcome: "AUTHENTICATED" }],
  ["POST", "/_mock/payouts/{payout}/advance", "account"],
  ["POST", "/_mock/payouts/{payout}/approve", "account"],
  ["POST", "/_mock/payouts/{payout}/reject", "account"],
  ["POST", "/_mock/payouts/{payout}/fail", "account", {}],
  ["POST", "/_mock/payouts/{payout}/refund", "account"],
  ["GET", "/_mock/webhooks?accountId={account}", "account"],
  ["GET", "/_mock/webhooks", "global"],
  ["POST", "/_mock/webhooks/{delivery}/redeliver", "account"],
  ["POST", "/_mock/webhooks/flush?accountId={account}", "account"],
  ["POST", "/_mock/webhooks/flush", "global"],
  ["GET", "/_mock/faults?accountId={account}", "account"],
  ["GET", "/_mock/faults", "global"],
  ["POST", "/_mock/faults", "account", { accountId: "{account}", path: "/payout", status: 503, times: 1 }],
  ["POST", "/_mock/faults", "global", { path: "/payout", status: 503, times: 1 }],
  ["DELETE", "/_mock/faults?accountId={account}", "account"],
  ["DELETE", "/_mock/faults", "global"],
  ["GET", "/_mock/clock", "global"],
  ["POST", "/_mock/clock", "global", { advanceMs: 1_000 }],
  ["POST", "/_mock/rate-limit", "global", { limit: null }],
  ["GET", "/_mock/pix-keys?accountId={account}", "account"],
  [
    "POST",
    "/_mock/pix-keys",
    "account",
    { key: "team-a@example.com", type: "EMAIL", accountId: "{account}" },
  ],
  ["GET", "/_mock/pix-keys", "global"],
  ["POST", "/_mock/pix-keys", "global", { key: "team@example.com", type: "EMAIL" }],
  ["POST", "/_mock/accounts/{account}/reset", "account"],
  ["POST", "/_mock/reset", "global"],
];
