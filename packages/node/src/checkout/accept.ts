// Which of its two answers the status endpoint gives a request: server-sent events or JSON, read from
// `Accept` as HTTP content negotiation reads it (q-values, the most specific range winning).

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(",")) {
    const [mediaType = "", ...parameters] = part.split(";");
    const [type, subtype, extra] = mediaType.trim().toLowerCase().split("/");
    if (!type || !subtype || extra !== undefined) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = "", value = ""] = parameter.split("=");
      if (name.trim().toLowerCase() === "q") q = Number(value.trim());
    }
    // A range with an unreadable weight says nothing the endpoint can trust.
    if (Number.isFinite(q) && q >= 0 && q <= 1) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The weight `ranges` give `type/subtype`: that of the most specific range matching it, 0 when none does. */
function quality(ranges: MediaRange[], type: string, subtype: string): number {
  let specificity = -1;
  let q = 0;
  for (const range of ranges) {
    const level =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (level > specificity) {
      specificity = level;
      q = range.q;
    }
  }
  return q;
}

/**
 * Whether `accept` asks for server-sent events: it must name `text/event-stream` (as EventSource
 * does) with a weight above 0 and no lower than JSON's. A wildcard alone, or `text/event-stream;q=0`,
 * gets the JSON answer.
 */
export function acceptsEventStream(accept: string | null): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  if (!ranges.some((range) => range.type === "text" && range.subtype === "event-stream")) return false;
  const stream = quality(ranges, "text", "event-stream");
  return stream > 0 && stream >= quality(ranges, "application", "json");
}
