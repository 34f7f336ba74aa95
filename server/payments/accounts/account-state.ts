import type { AccountState } from "../processors/types";
import type { StoredAccountStatus } from "./account-schema";

/**
 * The status a connected account's Stripe state gives. Charges enabled is what decides `active`:
 * requirements may still be listed (eventually due) while Stripe lets it charge.
 */
export function statusOf(state: AccountState): Exclude<StoredAccountStatus, "disconnected"> {
  if (state.chargesEnabled) return "active";
  return state.detailsSubmitted ? "restricted" : "onboarding";
}

/** The columns Stripe's state fills. */
export function stateColumns(state: AccountState) {
  return {
    chargesEnabled: state.chargesEnabled,
    detailsSubmitted: state.detailsSubmitted,
    requirementsDue: state.requirementsDue,
    status: statusOf(state),
  };
}
