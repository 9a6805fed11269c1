/** A minimal feed document for tests: products as [code, name, pack, kg price, pack price]. */
export function feed(effectiveFrom: string, categories: Record<string, [string, string, string, string, string][]>): string {
  const body = Object.entries(categories)
    .map(([code, products]) => {
      const items = products.map(
        ([codice, name, pack, kg, price]) =>
          `    <prodotto><codice>${codice}</codice><denominazione>${name}</denominazione><confezione>${pack}</confezione><prezzoKgConvenzionale>${kg}</prezzoKgConvenzionale><prezzoConfezione>${price}</prezzoConfezione></prodotto>`,
      );
      return `  <categoria codice="${code}">\n${items.join('\n')}\n  </categoria>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<tariffa ente="Agenzia delle Dogane e dei Monopoli" inVigoreDal="${effectiveFrom}">\n${body}\n</tariffa>\n`;
}
