import type { ReactNode } from "react";

export const metadata = { title: "Loja Exemplo: pagamento" };

// No web font: the system's own (a font download at build time would need the network).
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="pt-BR">
      <body style={{ fontFamily: "system-ui, sans-serif", maxWidth: "32rem", margin: "2rem auto" }}>
        {children}
      </body>
    </html>
  );
}
