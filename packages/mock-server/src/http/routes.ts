import type { ControlContext } from "../domain/control.js";
import { apiRoutes } from "./api-routes.js";
import { controlRoutes } from "./control-routes.js";
import { pageRoutes } from "./page-routes.js";
import type { Route } from "./router.js";

/** Every route of the mock. */
export function allRoutes(context: ControlContext): Route[] {
  return [...apiRoutes(), ...controlRoutes(context), ...pageRoutes()];
}
