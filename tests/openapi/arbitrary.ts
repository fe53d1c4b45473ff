// fast-check arbitraries built from the JSON Schemas of an OpenAPI 3.1 document, nothing else: the
// property test learns what to send from the document alone.
import fc from "fast-check";

type Json = Record<string, unknown>;

/** Builds an arbitrary of values valid by `schema` (most of the time: callers check with Ajv). */
export function arbitraryOf(schema: Json, doc: Json, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === "string") return arbitraryOf(resolve(doc, schema.$ref), doc, depth);
  const plain = plainArbitrary(schema, doc, depth);
  // A field's documented examples are part of the document: offer them next to random values.
  return Array.isArray(schema.examples) && schema.examples.length > 0
    ? fc.oneof(fc.constantFrom(...schema.examples), plain)
    : plain;
}

function plainArbitrary(schema: Json, doc: Json, depth: number): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  for (const key of ["oneOf", "anyOf"] as const)
    if (Array.isArray(schema[key]))
      return fc.oneof(...(schema[key] as Json[]).map((s) => arbitraryOf(s, doc, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  if (type.length > 1) return fc.oneof(...type.map((t) => arbitraryOf({ ...schema, type: t }, doc, depth)));
  switch (type[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = (schema.minimum as number | undefined) ?? -(2 ** 31);
      const max = (schema.maximum as number | undefined) ?? 2 ** 31 - 1;
      const small = fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 200_000) });
      const wide = fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
      return fc.oneof({ arbitrary: small, weight: 4 }, { arbitrary: wide, weight: 1 });
    }
    case "string":
      return stringOf(schema);
    case "array": {
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 3, minLength + 3);
      const items = schema.items ? arbitraryOf(schema.items as Json, doc, depth + 1) : fc.jsonValue();
      return fc.array(items, { minLength, maxLength });
    }
    case "object":
    case undefined: {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      if (Object.keys(properties).length === 0)
        return depth > 3
          ? fc.constant({})
          : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const record = Object.fromEntries(
        Object.entries(properties).map(([key, s]) => [key, arbitraryOf(s, doc, depth + 1)]),
      );
      return withConditionals(
        fc.record(record, { requiredKeys: (schema.required ?? []) as string[] }),
        schema,
        doc,
        depth,
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringOf(schema: Json): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? 64;
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  switch (schema.format) {
    case "email":
      return fc.emailAddress().filter(fits);
    case "uri":
      return fc.webUrl().filter(fits);
    case "ipv4":
      return fc.ipV4();
    case "uuid":
      return fc.uuid();
    case "date-time":
      return rfc3339DateTime();
    case "date":
      return someDate.map((d) => d.toISOString().slice(0, 10));
  }
  if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc
    .string({ unit: "grapheme", minLength, maxLength: Math.min(maxLength, minLength + 24) })
    .filter(fits);
}

/**
 * `allOf` of `if`/`then` rules keyed on properties' `const` (pixKey by pixKeyType): the record is drawn,
 * then each property the matching rule's `then` constrains is drawn again from both schemas merged.
 */
function withConditionals(
  record: fc.Arbitrary<Record<string, unknown>>,
  schema: Json,
  doc: Json,
  depth: number,
): fc.Arbitrary<unknown> {
  type Rule = { if?: { properties?: Record<string, Json> }; then?: { properties?: Record<string, Json> } };
  const rules = ((schema.allOf ?? []) as Rule[]).filter((rule) => rule.if && rule.then);
  if (rules.length === 0) return record;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  // Built once per rule, not per drawn record: a pattern's arbitrary is costly to make.
  const redraws = rules.map((rule) => ({
    when: Object.entries(rule.if?.properties ?? {}),
    fields: fc.record(
      Object.fromEntries(
        Object.entries(rule.then?.properties ?? {}).map(([key, s]) => {
          // the field's own examples and pattern belong to every branch; the rule's are this one's
          const { examples: _examples, pattern: _pattern, ...own } = properties[key] ?? {};
          return [key, arbitraryOf({ ...own, ...s }, doc, depth + 1)];
        }),
      ),
    ),
  }));
  return record.chain((value) => {
    const redraw = redraws.find(({ when }) => when.every(([key, s]) => value[key] === s.const));
    return redraw ? redraw.fields.map((fields) => ({ ...value, ...fields })) : fc.constant(value);
  });
}

const someDate = fc.date({
  min: new Date("2000-01-01T00:00:00Z"),
  max: new Date("2099-12-31T23:59:59Z"),
  noInvalidDate: true,
});

/**
 * What RFC 3339's `date-time` allows, not only what `toISOString` writes: `T` or `t`, 0 to 10 fraction
 * digits, `Z`, `z` or an offset (the same instant moved to it), and now and then a leap second (at
 * 23:59:60 UTC, the only place one may be).
 */
function rfc3339DateTime(): fc.Arbitrary<string> {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return fc
    .record({
      date: someDate,
      separator: fc.constantFrom("T", "t"),
      fraction: fc.option(fc.stringMatching(/^[0-9]{1,10}$/), { nil: "" }),
      offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })),
      zulu: fc.constantFrom("Z", "z", "+00:00", "-00:00"),
      leap: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
    })
    .map(({ date, separator, fraction, offsetMinutes, zulu, leap }) => {
      const utc = leap ? new Date(`${date.toISOString().slice(0, 10)}T23:59:00Z`) : date;
      const local = new Date(utc.getTime() + offsetMinutes * 60_000);
      const day = local.toISOString().slice(0, 10);
      const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${leap ? "60" : pad(local.getUTCSeconds())}`;
      const sign = offsetMinutes < 0 ? "-" : "+";
      const abs = Math.abs(offsetMinutes);
      const zone = offsetMinutes === 0 ? zulu : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
      return `${day}${separator}${time}${fraction ? `.${fraction}` : ""}${zone}`;
    });
}

/** The schema a local `$ref` points to. */
export function resolve(doc: Json, ref: string): Json {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Json)[part];
  return node as Json;
}
