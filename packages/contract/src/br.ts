/**
 * The Brazilian rules of the contract without zod or any schema, so a bundler keeps only what a page
 * uses: CPF, CNPJ (numeric and alphanumeric), CEP, phone, e-mail, UF, PIX keys, PIX BR Codes and boleto
 * digitable lines.
 *
 * @example
 * ```ts
 * import { isValidCpf } from "@paykit/contract/br";
 * isValidCpf("52998224725"); // true
 * ```
 *
 * @packageDocumentation
 * @module @paykit/contract/br
 */
export {
  BoletoError,
  type BoletoFields,
  boletoDueDateFactor,
  boletoDueDateFromFactor,
  buildBoletoBarcode,
  buildBoletoLine,
  isValidBoletoLine,
  type ParsedBoletoLine,
  parseBoletoLine,
} from "./boleto.js";
export {
  BrCodeError,
  type BrCodeFields,
  buildBrCode,
  crc16Ccitt,
  isValidBrCode,
  type ParsedBrCode,
  parseBrCode,
} from "./br-code.js";
export {
  type CardBrand,
  cardBrand,
  cardLast4,
  isLuhnValid,
  isValidCardNumber,
  isValidCep,
  isValidCnpj,
  isValidCpf,
  isValidCvv,
  isValidEmail,
  isValidExpiry,
  isValidIpv4,
  isValidPhone,
  isValidPixKey,
  isValidUf,
  PIX_KEY_TYPES,
  type PixKeyType,
  pixKeyTypeOf,
  UF_CODES,
} from "./validators/index.js";
