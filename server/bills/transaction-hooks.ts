import type { TransactionHooks } from "../charger-reports/transaction-hooks";
import { billTransactionEnded } from "./bill-ended";
import { billTransactionUpdated } from "./live-cap";
import { matchBill } from "./match-bill";

/**
 * What a bill does when a charger reports on a transaction: the transaction carrying its token
 * becomes its own (`matchBill`, at the start or when the token comes later), its readings price
 * it live and may stop it at the hold (`billTransactionUpdated`), and its end ends the bill
 * (`billTransactionEnded`). Registered, ahead of the sessions', by `server/domains.ts`.
 */
export const billTransactionHooks: TransactionHooks = {
  domain: "bills",
  onTransactionStarted: matchBill,
  onTokenLearned: matchBill,
  onTransactionUpdated: billTransactionUpdated,
  onTransactionEnded: billTransactionEnded,
};
