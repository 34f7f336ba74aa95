import type { DbTx } from "../db";
import { authorizeToken, type AuthorizationStatus } from "../charging/authorize-token";
import type { ChargerContext } from "../charging/connections";

/**
 * A charger presented a token (1.6 idTag, 2.x idToken): at Authorize, at a transaction's start or
 * stop, or in a TransactionEvent. The answer is the tenant's judgement of it (`authorizeToken`).
 */
export async function tokenPresented(
  tx: DbTx,
  charger: ChargerContext,
  token: string,
): Promise<AuthorizationStatus> {
  return authorizeToken(tx, charger.tenantId, token);
}
