// JSR publishes this package's TypeScript source and asks every export for an explicit type (no "slow
// types": docs/decisions/jsr.md). A schema's declared type repeats its shape, so `declared` makes the
// compiler hold that copy to the schema: a field the declaration lacks or adds, another schema type, or a
// strict object declared loose is a type error where the schema is written (an annotation alone accepts a
// declaration with fewer fields, and the inferred types would lose them silently).

type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Answers `schema` as its declared type `T`, which must be exactly the schema's own type. */
export function declared<T, S extends T = T>(
  schema: S & (Same<T, S> extends true ? unknown : "the declared type differs from the schema"),
): T {
  return schema;
}
