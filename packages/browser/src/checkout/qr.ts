/*! lean-qr | MIT License | (c) 2021-2025 David Evans */
import { type Correction, generate } from "lean-qr/nano";
import { setAttributes } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
/** The quiet zone around the code, in modules: the 4 that ISO/IEC 18004 asks for. */
const QUIET = 4;

/**
 * The PIX BR Code as an SVG QR code, one `<path>` of dark modules on a light square, scaled by CSS. Error
 * correction M: a phone camera reads it off a glossy screen, and the code stays small enough to scan.
 * The code itself is the image's text alternative (`role="img"`, `aria-label`).
 */
export function qrSvg(doc: Document, text: string): SVGSVGElement {
  // 1 is correction.M: importing lean-qr's `correction` object would cost 20 B of the budget.
  const code = generate(text, { minCorrectionLevel: 1 as Correction });
  const side = code.size + 2 * QUIET;
  let d = "";
  // One rectangle per horizontal run of dark modules: a third of the path of one square per module.
  for (let y = 0; y < code.size; y++) {
    for (let x = 0; x < code.size; x++) {
      let run = 0;
      while (code.get(x + run, y)) run++;
      if (run) d += `M${x + QUIET} ${y + QUIET}h${run}v1h-${run}z`;
      x += run;
    }
  }
  const svg = setAttributes(doc.createElementNS(SVG, "svg"), {
    viewBox: `0 0 ${side} ${side}`,
    role: "img",
    "aria-label": text,
    part: "qr",
    class: "qr",
    "shape-rendering": "crispEdges",
  });
  svg.append(setAttributes(doc.createElementNS(SVG, "path"), { d }));
  return svg;
}
