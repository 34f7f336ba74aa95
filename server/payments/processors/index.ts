import { env } from "../../env";
import { createSimulatorProcessor, type SimulatorProcessor } from "./simulator";
import { createStripeProcessor, type StripeProcessor } from "./stripe";
import type { PaymentProcessor, PaymentServiceName } from "./types";

/**
 * The process's payment processors, built once from the configuration: `card` from the
 * STRIPE_* settings (unavailable without a secret key), `simulator` over the product's database.
 */
let card: StripeProcessor | undefined;
let simulator: SimulatorProcessor | undefined;

export function cardProcessor(): StripeProcessor {
  card ??= createStripeProcessor(env().stripe);
  return card;
}

export function simulatorProcessor(): SimulatorProcessor {
  simulator ??= createSimulatorProcessor({ publicBaseUrl: env().publicBaseUrl });
  return simulator;
}

export function paymentProcessor(service: PaymentServiceName): PaymentProcessor {
  return service === "card" ? cardProcessor() : simulatorProcessor();
}

/** For tests: use these processors (e.g. `card` against a local Stripe fake) in this process. */
export function usePaymentProcessors(processors: {
  card?: StripeProcessor;
  simulator?: SimulatorProcessor;
}) {
  if (processors.card) card = processors.card;
  if (processors.simulator) simulator = processors.simulator;
}
