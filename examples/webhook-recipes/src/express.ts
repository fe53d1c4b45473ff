// Express: express.raw() on the webhook route only, mounted before any global express.json(),
// so req.body is the exact bytes the signature covers.
import express from "express";
import type { Receiver } from "./receiver.js";

/** An Express app with the webhook route (and JSON for the rest of the app). */
export function createExpressApp(receiver: Receiver): express.Express {
  const app = express();
  app.post("/webhooks/paykit", express.raw({ type: "application/json" }), async (req, res) => {
    res.sendStatus(await receiver.fromRaw(req.body as Buffer, req.headers));
  });
  app.use(express.json()); // the rest of the app parses JSON as usual
  return app;
}
