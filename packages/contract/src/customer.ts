import * as z from "zod/mini";
import { declared } from "./declared.js";
import { storableString, text } from "./fields.js";
import { isValidCep, isValidCpf, isValidEmail, isValidPhone, UF_CODES } from "./validators/index.js";

/** The payer's CPF: 11 digits, digits only, with valid check digits. */
export const Cpf: z.ZodMiniString<string> = storableString(
  z.refine(isValidCpf, { error: "must be a valid CPF (11 digits, digits only)" }),
);

/** A phone number: digits only, 55 + area code + number (12 or 13 digits; a 9-digit number starts with 9). */
export const Phone: z.ZodMiniString<string> = storableString(
  z.refine(isValidPhone, {
    error: "must be 55 + area code + number, digits only (12 or 13 digits; a 9-digit number starts with 9)",
  }),
);

/** A postal code (CEP): exactly 8 digits. */
export const ZipCode: z.ZodMiniString<string> = storableString(
  z.refine(isValidCep, { error: "must be a CEP of 8 digits, digits only" }),
);

/** An e-mail address. */
export const Email: z.ZodMiniString<string> = storableString(
  z.refine(isValidEmail, { error: "must be a valid e-mail address" }),
);

/** A two-letter Brazilian state code (UF). */
export const Uf: z.ZodMiniEnum<{ [Code in (typeof UF_CODES)[number]]: Code }> = declared(z.enum(UF_CODES));
/** A two-letter Brazilian state code (UF). */
export type Uf = z.infer<typeof Uf>;

/** The payer's address; required for PIX, BOLETO and CREDIT_CARD, optional for OPEN_FINANCE. */
export const Address: z.ZodMiniObject<
  {
    street: z.ZodMiniString<string>;
    number: z.ZodMiniString<string>;
    zipCode: typeof ZipCode;
    city: z.ZodMiniString<string>;
    state: typeof Uf;
    complement: z.ZodMiniOptional<z.ZodMiniString<string>>;
    neighborhood: z.ZodMiniOptional<z.ZodMiniString<string>>;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    street: text(200),
    number: text(20),
    zipCode: ZipCode,
    city: text(100),
    state: Uf,
    complement: z.optional(text(200)),
    neighborhood: z.optional(text(100)),
  }),
);
/** The payer's address as sent in a payin request. */
export type Address = z.infer<typeof Address>;

const customerShape = {
  name: text(200),
  document: Cpf,
  email: Email,
  phone: Phone,
};

/** The paying customer, address included (PIX, BOLETO, CREDIT_CARD). */
export const Customer: z.ZodMiniObject<
  {
    name: z.ZodMiniString<string>;
    document: typeof Cpf;
    email: typeof Email;
    phone: typeof Phone;
    address: typeof Address;
  },
  z.core.$strict
> = declared(z.strictObject({ ...customerShape, address: Address }));
/** The paying customer, address included. */
export type Customer = z.infer<typeof Customer>;

/** The paying customer of an OPEN_FINANCE payin, where the address may be left out. */
export const OpenFinanceCustomer: z.ZodMiniObject<
  {
    name: z.ZodMiniString<string>;
    document: typeof Cpf;
    email: typeof Email;
    phone: typeof Phone;
    address: z.ZodMiniOptional<typeof Address>;
  },
  z.core.$strict
> = declared(z.strictObject({ ...customerShape, address: z.optional(Address) }));
/** The paying customer of an OPEN_FINANCE payin. */
export type OpenFinanceCustomer = z.infer<typeof OpenFinanceCustomer>;

/** The customer as the service returns it: checked for shape only, unknown fields kept. */
export const CustomerRecord: z.ZodMiniObject<
  {
    name: z.ZodMiniString<string>;
    document: z.ZodMiniString<string>;
    email: z.ZodMiniString<string>;
    phone: z.ZodMiniString<string>;
    address: z.ZodMiniOptional<
      z.ZodMiniNullable<
        z.ZodMiniObject<
          {
            street: z.ZodMiniString<string>;
            number: z.ZodMiniString<string>;
            zipCode: z.ZodMiniString<string>;
            city: z.ZodMiniString<string>;
            state: z.ZodMiniString<string>;
            complement: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>;
            neighborhood: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>;
          },
          z.core.$loose
        >
      >
    >;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    name: z.string(),
    document: z.string(),
    email: z.string(),
    phone: z.string(),
    address: z.optional(
      z.nullable(
        z.looseObject({
          street: z.string(),
          number: z.string(),
          zipCode: z.string(),
          city: z.string(),
          state: z.string(),
          complement: z.optional(z.nullable(z.string())),
          neighborhood: z.optional(z.nullable(z.string())),
        }),
      ),
    ),
  }),
);
/** The customer as the service returns it in a payin record. */
export type CustomerRecord = z.infer<typeof CustomerRecord>;
