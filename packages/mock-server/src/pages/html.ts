/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe to embed in an inline `<script>` (no `</script>`, no HTML comment openers). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** A small standalone HTML page in the mock bank's style; `head` is extra (already escaped) head markup. */
export function page(title: string, body: string, script = "", head = ""): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}<style>
body { font-family: system-ui, sans-serif; margin: 0; padding: 24px; color: #1a1a1a; background: #f6f7f9; }
main { max-width: 420px; margin: 0 auto; background: #fff; border-radius: 8px; padding: 24px; box-shadow: 0 1px 4px rgba(0,0,0,.1); }
h1 { font-size: 20px; margin-top: 0; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; }
dt { color: #666; }
dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.actions { display: flex; gap: 12px; margin-top: 24px; }
button { flex: 1; padding: 12px; font-size: 16px; border-radius: 6px; border: 1px solid #ccc; cursor: pointer; background: #fff; }
button.primary { background: #0a7d32; color: #fff; border-color: #0a7d32; }
button.danger { background: #b3261e; color: #fff; border-color: #b3261e; }
button .pt { display: block; font-size: 12px; opacity: .85; }
button:disabled { opacity: .5; cursor: default; }
.note { color: #666; font-size: 13px; }
</style>
</head>
<body>
<main>
${body}
</main>
${script ? `<script>\n${script}\n</script>` : ""}
</body>
</html>
`;
}
