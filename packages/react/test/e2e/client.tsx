// The page's script: hydrates the server's HTML with the payin the server put in a JSON data block (no inline
// script under the strict CSP), and exposes the recorded events to the test.
import { version } from "react";
import { hydrateRoot } from "react-dom/client";
import { App, events } from "./app.js";

const payin = JSON.parse(document.getElementById("payin")!.textContent!);
Object.assign(window, { paykitEvents: events, reactVersion: version });
hydrateRoot(document.getElementById("root")!, <App payin={payin} />);
