// The screen's only styles: adopted as a constructable stylesheet (allowed by a CSP without 'unsafe-inline'),
// and written to dist/checkout.css by the build for browsers without one. Every colour pair meets WCAG AA
// (4.5:1 for text) on the default background; themes change the `--paykit-*` properties or style `::part()`.
// `.pay` and its media query order the PIX code and QR code by the screen's width
// (docs/decisions/checkout-pix-layout.md). Each line ends in `\` so that the text holds no line break.
/** The payment screen's stylesheet, the same text as `@paykit/browser/checkout.css`. */
export const CHECKOUT_CSS = `:host{display:block}\
*{box-sizing:border-box}\
[part=root]{--a:var(--paykit-color-accent,#0b6b4f);--b:var(--paykit-color-border,#8c959f);font:var(--paykit-font,1rem/1.5 system-ui,sans-serif);color:var(--paykit-color-text,#1f2328);background:var(--paykit-color-background,#fff);border:1px solid var(--b);border-radius:var(--paykit-radius,12px);padding:1.5rem;max-width:26rem;text-align:center}\
h2{font-size:1.25rem;margin:0 0 .5rem}\
p{margin:.5rem 0}\
.qr{width:var(--paykit-qr-size,14rem);max-width:100%;margin:1rem auto;background:#fff;forced-color-adjust:none;fill:#000}\
.pay{display:grid}\
@media (min-width:480px){.qr{order:-1}}\
label{display:block;font-weight:600;margin-top:1rem;text-align:start}\
textarea{display:block;width:100%;margin:.25rem 0 .5rem;padding:.5rem;font:.875rem/1.4 ui-monospace,monospace;color:inherit;background:var(--paykit-color-field,#f6f8fa);border:1px solid var(--b);border-radius:6px;resize:none;overflow-wrap:anywhere}\
.button{display:inline-block;min-height:44px;padding:.6rem 1.25rem;font:inherit;font-weight:600;text-decoration:none;color:var(--paykit-color-on-accent,#fff);background:var(--a);border:2px solid var(--a);border-radius:8px;cursor:pointer}\
.secondary{color:var(--a);background:0 0}\
:focus-visible{outline:3px solid var(--paykit-color-focus,#0b57d0);outline-offset:2px}\
.note,.countdown{font-weight:600;font-variant-numeric:tabular-nums}\
.muted,.waiting{color:var(--paykit-color-muted,#4f5661)}\
.waiting:before{content:"";display:inline-block;vertical-align:middle;width:1em;height:1em;margin-right:.5em;border:2px solid;border-right-color:#0000;border-radius:50%;animation:paykit-spin 1s linear infinite}\
@keyframes paykit-spin{to{transform:rotate(1turn)}}\
.final h2:before{display:block;margin:0 auto .5rem;width:2.5rem;line-height:2.5rem;border-radius:50%;color:#fff;font-size:1.5rem;content:"✓";content:"✓"/"";background:var(--paykit-color-success,#0b6b4f)}\
.bad h2:before{content:"!";content:"!"/"";background:var(--paykit-color-danger,#b42318)}\
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}\
@media (prefers-reduced-motion:reduce){.waiting:before{animation:none;border-right-color:unset;opacity:.6}}`;
