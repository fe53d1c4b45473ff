import type { AfterCommit } from "../domain/control.js";
import { ApiError } from "../domain/errors.js";
import type { Turn } from "../domain/turn.js";
import type { ControlAccess } from "./control-access.js";
import type { EngineRequest, EngineResponse } from "./messages.js";

/** Who may call a route: the merchant API (Basic auth), the control API (admin token), or customer pages (open). */
export type RouteKind = "api" | "control" | "page";

/** What a route handler receives. */
export interface RouteCall {
  req: EngineRequest;
  params: Record<string, string>;
  /** On a shared sandbox, the account whose own keys authorized this control call (none: the admin token). */
  caller?: string;
  /** The request's turn: its transaction of the store. */
  turn: Turn;
}

/** One route of the mock. */
export interface Route {
  method: string;
  /** Path with `:name` segments. */
  path: string;
  kind: RouteKind;
  /** Whom a control call concerns, for a shared sandbox's access rules (a control route without it is global). */
  access?: (call: RouteCall) => ControlAccess | Promise<ControlAccess>;
  /** False for a route that changes nothing: its turn takes no lock. @default true */
  writes?: false;
  /** Answers the request in its turn, or once its turn committed (what it waits for after it). */
  handle(
    call: RouteCall,
  ): EngineResponse | AfterCommit<EngineResponse> | Promise<EngineResponse | AfterCommit<EngineResponse>>;
}

interface Compiled {
  route: Route;
  segments: string[];
}

/**
 * Matches a method and path to a route: 404 NOT_FOUND for an unknown path, 405 METHOD_NOT_ALLOWED
 * (with `Allow`) for a known path and another method. Static paths are one map lookup.
 */
export class Router {
  readonly #static = new Map<string, Map<string, Route>>();
  readonly #dynamic: Compiled[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      if (route.path.includes(":")) {
        this.#dynamic.push({ route, segments: route.path.split("/") });
      } else {
        const byMethod = this.#static.get(route.path) ?? new Map<string, Route>();
        byMethod.set(route.method, route);
        this.#static.set(route.path, byMethod);
      }
    }
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } {
    const byMethod = this.#static.get(path);
    if (byMethod) {
      const route = byMethod.get(method);
      if (route) return { route, params: {} };
      throw notAllowed(method, path, [...byMethod.keys()]);
    }
    const parts = path.split("/");
    const allowed: string[] = [];
    for (const { route, segments } of this.#dynamic) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allowed.push(route.method);
    }
    if (allowed.length > 0) throw notAllowed(method, path, allowed);
    throw new ApiError("NOT_FOUND", `no route ${method} ${path}`);
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.startsWith(":")) {
      if (part.length === 0) return null;
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (segment !== part) {
      return null;
    }
  }
  return params;
}

function notAllowed(method: string, path: string, allowed: string[]): ApiError {
  // Every GET route answers HEAD too (the engine runs the GET and drops the body).
  const methods = new Set(allowed);
  if (methods.has("GET")) methods.add("HEAD");
  const allow = [...methods].sort().join(", ");
  return new ApiError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; use ${allow}`, {
    headers: { allow },
  });
}
