import type http from "node:http";
import type { FakeBilling } from "./stripe-fake-billing";
import { DECLINE_MESSAGES, parseForm } from "./stripe-fake-objects";

/**
 * The fake's stand-ins for team billing's Stripe-hosted pages, for browsers (no API key), and its
 * test controls over HTTP for tests in another process than the fake (the e2e specs: the fake
 * runs in Playwright's global setup). Test code.
 *
 * - `/c/setup/<cs_…>`: a Checkout Session in `setup` mode. A card session offers "Save card"
 *   and a declined card; a bank-account one, instant verification or microdeposits. As Stripe's
 *   page does, a declined card stays on the page with the reason (the session stays open for
 *   another try) and "Back" returns to `cancel_url`; a saved method returns to `success_url`. A
 *   session no longer open says so, with the way back.
 * - `/i/<in_…>`: an invoice's hosted page, where an open invoice is paid ("Pay this invoice");
 *   `/i/<in_…>/pdf`: its "PDF" (plain text).
 * - `/_fake/billing/…` (the secret key as Bearer, as for the API): open an invoice for a team's
 *   Customer (`team_id` from the Customer's metadata, `amount`, `due_in_days` for one sent to pay
 *   by a due date, negative for one already past it), fail or pay its automatic payment. Each
 *   moves the invoice as Stripe would and emits its events (delivered by `deliverPlatformEvents`).
 */
export const BILLING_PAGE_PATH = /^\/(c\/setup|i)\/([A-Za-z0-9_]+)(\/pdf|\/pay)?$/;
export const BILLING_CONTROL_PATH =
  /^\/_fake\/billing\/invoices(?:\/([A-Za-z0-9_]+)\/(fail|pay))?$/;

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

function page(res: http.ServerResponse, status: number, title: string, body: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} (Stripe test fake)</title></head>
<body><main><h1>${escape(title)}</h1><p>The Stripe test fake's stand-in for a Stripe-hosted page.</p>
${body}</main></body></html>`);
}

const redirect = (res: http.ServerResponse, to: string) => {
  res.writeHead(303, { location: to });
  res.end();
};

export function serveBillingPage(
  billing: FakeBilling,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  form: string,
) {
  const [, kind, id = "", tail] = BILLING_PAGE_PATH.exec(path) ?? [];
  if (kind === "c/setup") return setupPage(billing, req, res, id, form);
  const invoice = billing.invoices.get(id);
  if (!invoice) {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("No such invoice.");
  }
  if (tail === "/pdf") {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    return res.end(
      `Invoice ${invoice.number}: ${invoice.amount_due} ${invoice.currency} minor units.`,
    );
  }
  if (tail === "/pay" && req.method === "POST") {
    if (invoice.status === "open") billing.payInvoice(id);
    return redirect(res, `/i/${id}`);
  }
  const amount = `${(invoice.amount_due / 100).toFixed(2)} ${invoice.currency.toUpperCase()}`;
  page(
    res,
    200,
    `Invoice ${invoice.number}`,
    `<p>Amount due: ${amount}. Status: <strong data-status="${invoice.status}">${invoice.status}</strong>.</p>
${
  invoice.status === "open"
    ? `<form method="post" action="/i/${id}/pay"><button type="submit">Pay this invoice</button></form>`
    : ""
}<p><a href="/i/${id}/pdf">Download PDF</a></p>`,
  );
}

function setupPage(
  billing: FakeBilling,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  id: string,
  form: string,
) {
  const session = billing.sessions.get(id);
  if (!session) {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("No such setup page.");
  }
  const back = session.cancel_url ?? session.success_url;
  if (session.status !== "open")
    return page(
      res,
      200,
      "This setup page is no longer open",
      `<p>It was ${session.status === "complete" ? "completed" : "left to expire"}.</p><p><a href="${escape(back)}">Back to the site</a></p>`,
    );
  let error: string | null = null;
  if (req.method === "POST") {
    const asked = parseForm(form).outcome;
    const outcome = typeof asked === "string" ? asked : "";
    const decline = /^card_decline_([a-z_]+)$/.exec(outcome)?.[1];
    if (decline && decline in DECLINE_MESSAGES) {
      billing.completeSetup(id, { card: { decline } });
      error = DECLINE_MESSAGES[decline]!;
    } else if (outcome === "card_success" || outcome.startsWith("bank_")) {
      billing.completeSetup(
        id,
        outcome === "card_success"
          ? { card: "success" }
          : { bank: outcome === "bank_microdeposits" ? "microdeposits" : "instant" },
      );
      return redirect(res, session.success_url);
    } else {
      res.writeHead(400, { "content-type": "text/plain" });
      return res.end("Unknown outcome.");
    }
  }
  const card = session.payment_method_types.includes("card");
  const buttons = card
    ? `<button type="submit" name="outcome" value="card_success">Save card</button>
<button type="submit" name="outcome" value="card_decline_insufficient_funds">Use a card that is declined (insufficient funds)</button>`
    : `<button type="submit" name="outcome" value="bank_instant">Link bank account (verified instantly)</button>
<button type="submit" name="outcome" value="bank_microdeposits">Link bank account by microdeposits</button>`;
  page(
    res,
    200,
    card ? "Save a card" : "Link a US bank account",
    `${error ? `<p role="alert">${escape(error)}</p>` : ""}
<form method="post" action="/c/setup/${id}">${buttons}</form>
<p><a href="${escape(back)}">Back</a></p>`,
  );
}

/** The test controls (`/_fake/billing/…`); answers JSON. */
export function serveBillingControl(
  billing: FakeBilling,
  res: http.ServerResponse,
  path: string,
  form: string,
) {
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const [, invoiceId, action] = BILLING_CONTROL_PATH.exec(path) ?? [];
  try {
    if (invoiceId && action === "fail") {
      billing.failInvoicePayment(invoiceId);
      return json(200, { id: invoiceId });
    }
    if (invoiceId && action === "pay") {
      billing.payInvoice(invoiceId);
      return json(200, { id: invoiceId });
    }
    const params = parseForm(form);
    const customer = [...billing.customers.values()].find(
      (c) => c.metadata.team_id === String(params.team_id),
    );
    if (!customer) return json(404, { error: `no customer for team ${String(params.team_id)}` });
    const id = billing.openInvoice(
      customer.id,
      Number(params.amount),
      params.due_in_days === undefined ? {} : { dueInDays: Number(params.due_in_days) },
    );
    return json(200, { id });
  } catch (error) {
    return json(409, { error: String(error) });
  }
}
