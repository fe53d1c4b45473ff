import { ApiError } from "../domain/errors.js";

// DNS rebinding (issue 21): a page on attacker.example makes its own name resolve to 127.0.0.1, and
// the browser then treats the mock as that page's own origin, so the page can read the control API and
// the dashboard of a mock without --admin-token. The one thing the page cannot change is the Host
// header: the browser sends the name in the address bar, `attacker.example`. So the mock's own surface
// answers only the names it knows it is reached at. An IP address in Host is always fine: a browser
// sends one only for a page whose origin is that address, and an address does not re-resolve.

/** Which `Host` headers the mock's own surface (`/_mock/*`: control API, dashboard, customer pages) answers. */
export interface HostAllowList {
  /** Whether a request with this `Host` header may reach the mock's own surface (absent: HTTP/1.0, no browser). */
  allows(host: string | undefined): boolean;
  /** The 403 `FORBIDDEN_HOST` for a `Host` that {@link HostAllowList.allows} refused. */
  refusal(host: string): ApiError;
}

/**
 * The allow-list of a mock listening as `names` (its bind address, the host of its public and peer
 * URLs, as URLs or bare names) plus the `allowedHosts` its user added: entries are host names, and
 * `.team.example` or `*.team.example` allows that name and every name under it. Loopback names
 * (`localhost`, `*.localhost`) and IP addresses are always allowed. Throws a `TypeError` naming a
 * malformed entry.
 */
export function hostAllowList(
  names: readonly (string | undefined)[],
  allowedHosts: readonly string[] = [],
): HostAllowList {
  const exact = new Set(["localhost"]);
  const suffixes = [".localhost"];
  for (const name of names) {
    if (name === undefined || name === "") continue;
    const host = ownHostname(name);
    if (host !== null) exact.add(host);
  }
  for (const entry of allowedHosts) {
    const { name, subdomains } = parseAllowedHost(entry);
    exact.add(name);
    if (subdomains) suffixes.push(`.${name}`);
  }
  // A client sends the same Host on every request: the last one allowed is remembered.
  let lastAllowed: string | undefined;
  return {
    allows(host) {
      if (host === undefined || host === lastAllowed) return true;
      const name = hostnameOf(host);
      if (name === null) return false;
      const allowed =
        isIpAddress(name) || exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
      if (allowed) lastAllowed = host;
      return allowed;
    },
    refusal(host) {
      const name = hostnameOf(host) ?? host;
      const named = [...exact].filter((n) => n !== "localhost" && !isIpAddress(n));
      const allowed = [
        "localhost",
        "*.localhost",
        "IP addresses",
        ...named,
        ...suffixes.slice(1).map((s) => `*${s}`),
      ];
      return new ApiError(
        "FORBIDDEN_HOST",
        `the mock's control API and pages do not answer Host "${host}": a page on another name could read ` +
          `them by DNS rebinding. If you reach the mock at ${name} (a reverse proxy, a container name), ` +
          `start it with --allowed-hosts ${name} (allowedHosts: ["${name}"] in code), or with --public-url ` +
          `when that is the URL its clients use. Allowed now: ${allowed.join(", ")}`,
        { status: 403 },
      );
    },
  };
}

/** Reads one `--allowed-hosts` (`allowedHosts`) entry; throws a `TypeError` meant for the user. */
export function parseAllowedHost(entry: string): { name: string; subdomains: boolean } {
  const subdomains = entry.startsWith(".") || entry.startsWith("*.");
  const bare = entry.slice(entry.startsWith("*.") ? 2 : subdomains ? 1 : 0);
  const name = /^[A-Za-z0-9._-]+$/.test(bare) ? hostnameOf(bare) : null;
  if (name === null || name === "" || name.startsWith(".")) {
    throw new TypeError(
      `allowed hosts are host names without scheme or port (mock.team.example, or .team.example for ` +
        `every name under it), got ${JSON.stringify(entry)}`,
    );
  }
  return { name, subdomains };
}

/** The host name of one of the mock's own URLs (`https://mock.team.example`) or bind names. */
function ownHostname(name: string): string | null {
  if (!/^https?:\/\//i.test(name)) return hostnameOf(name);
  try {
    return hostnameOf(new URL(name).host);
  } catch {
    return null;
  }
}

/** A Host header's name: lower case, IDNA and IPv4 forms normalised, port and one trailing dot dropped. */
function hostnameOf(host: string): string | null {
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/** Whether a normalised host name is an IPv4 address or a bracketed IPv6 address. */
function isIpAddress(name: string): boolean {
  return name.startsWith("[") || /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
