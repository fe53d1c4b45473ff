import QRCode from "qrcode";

/**
 * Renders a PIX BR Code as a QR image for the checkout page: an SVG `data:` URL, so the page needs
 * no script of its own to draw it. Error correction M is what banking apps scan reliably on screens.
 */
export async function brCodeQrDataUrl(brCode: string): Promise<string> {
  const svg = await QRCode.toString(brCode, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
