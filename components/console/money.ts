/**
 * An amount in minor units as a person reads it, in the currency the API object names
 * ("$4.32", "-$0.50", "€12.00"); "—" when there is no amount. Every console page prints money
 * through this one function, with the object's own `currency` (bills, payments, sessions,
 * transactions and tariffs all carry one); the default is the service's USD.
 */
export function money(minor: number | null | undefined, currency: string | null = "USD"): string {
  if (minor === null || minor === undefined || !Number.isFinite(minor)) return "—";
  return formatter(currency ?? "USD").format(minor / 100);
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: string): Intl.NumberFormat {
  let f = formatters.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat("en-US", { style: "currency", currency });
    } catch {
      // Not an ISO 4217 code Intl knows: the code itself beside the number, never a wrong sign.
      const plain = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2 });
      f = { format: (n: number) => `${plain.format(n)} ${currency}` } as Intl.NumberFormat;
    }
    formatters.set(currency, f);
  }
  return f;
}
