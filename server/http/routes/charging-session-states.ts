/** The session's and the settlement's state tables, for the route descriptions (and so the OpenAPI document). */
export const SESSION_STATES = `
Session statuses (derived from facts; each change is published as \`charging_session.status_changed\` in the transaction of the fact: the request, the operation's outcome, or the charger's own message):

| Status | Moved by | Next | Also |
| --- | --- | --- | --- |
| \`created\` | POST …/start (csms, \`funding_confirmed: true\`) | \`starting\` | an \`external.start\` operation (202): the start reservation |
| \`created\` | POST …/cancel | \`canceled\` | connector free; its bill \`canceled\` (closed, no hold shown); the service releases no funds (the application holds them) |
| \`created\` | POST …/finalize (simulated, \`energy_wh\`) | \`final\` | \`bill.finalized\` with \`session_id\` |
| \`starting\` | the start operation \`rejected\` | \`created\` | reservation freed, \`funding_confirmed\` false: start again with a new key, or cancel |
| \`starting\` | the start operation \`unknown\` | \`start_unknown\` | \`needs_reconciliation\` (\`start_unknown\`); never resend under a new key |
| \`starting\`, \`start_unknown\` | the charger starts a transaction with the session's token on its connector | \`charging\` | usage is live |
| \`charging\` | POST …/stop | \`stopping\` | an \`external.stop\` operation (202) for its own transaction: the stop reservation |
| \`stopping\` | the stop operation \`rejected\` | \`charging\` | stop again |
| \`charging\`, \`stopping\` | the transaction ends (the charger's message) | \`awaiting_bill\` | |
| \`awaiting_bill\` | POST …/finalize with the \`transaction_id\` | \`final\` | \`total_minor\` fixed; usage fixed; connector free |

No start timeout, energy or hold cutoff, processor webhook handler or retry worker exists. A transaction with the session's token on another connector, or a second one, matches nothing and flags the session (\`token_elsewhere\`, \`second_transaction\`) for an operator.
`.trim();

export const SETTLEMENT_STATES = `
Outcomes of a reported money operation (\`kind\` + \`operation_reference\`):

| Outcome | Moved by | Condition | Next |
| --- | --- | --- | --- |
| (none) | report | any outcome | that outcome |
| \`pending\` | report | later report of the same operation | \`succeeded\` or \`failed\` (or \`unknown\`) |
| \`unknown\` | report | later report of the same operation | \`succeeded\` or \`failed\` (or \`pending\`) |
| \`succeeded\`, \`failed\` | report | another outcome | unchanged: 409 \`settlement_outcome_final\` |
| any | report | the same outcome again (a delayed duplicate) | unchanged: the historical report, \`duplicate: true\` |
`.trim();
