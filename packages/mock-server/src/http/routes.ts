import type { ControlOperations } from "../domain/control.js";
import type { MockState } from "../domain/state.js";
import { apiRoutes } from "./api-routes.js";
import { controlRoutes } from "./control-routes.js";
import { pageRoutes } from "./page-routes.js";
import type { Route } from "./router.js";

/** Every route of the mock. */
export function allRoutes(state: MockState, ops: ControlOperations): Route[] {
  return [...apiRoutes(state), ...controlRoutes(state, ops), ...pageRoutes(state)];
}
