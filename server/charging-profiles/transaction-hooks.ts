import type { TransactionHooks } from "../charger-reports/transaction-hooks";

/**
 * A TxProfile lives as long as its transaction: the charger drops it when the transaction ends
 * (OCPP 1.6 and 2.x alike), so the service's rows for it (`pending`, `installed`, `unknown`, any
 * source: the API's or a site limit's) become `ended` in the transaction that records the end.
 * The row keeps the operation that last set it and the charger's last answer; `ended` is not live
 * (`GET …/charging-profiles` leaves it out unless `all=true`), and a late answer to its set no
 * longer moves it (`chargingProfileSet.onSettled`).
 */
export const chargingProfileTransactionHooks: TransactionHooks = {
  domain: "charging-profiles",
  async onTransactionEnded(tx, t) {
    await tx.$executeRaw`
      UPDATE charging_profiles
         SET state = 'ended', updated_at = now()
       WHERE station_id = ${t.stationId} AND purpose = 'TxProfile'
         AND state IN ('pending', 'installed', 'unknown')
         AND (profile -> 'transaction' ->> 'id')::int = ${t.id}`;
  },
};
