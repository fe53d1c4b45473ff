// 0-255 without leading zeros: "01" could be read as octal by some stacks, so it is refused.
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** Whether `value` is the paying customer's IPv4 address for the antifraud check: a dotted quad, each part 0-255, no leading zeros. */
export function isValidIpv4(value: string): boolean {
  return IPV4.test(value);
}
