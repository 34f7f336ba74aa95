import { z } from "zod";

/**
 * PostgreSQL `integer` (int4) holds -2^31 to 2^31 − 1: the type of every id column, and of every
 * count and amount of money the service stores. JSON numbers go to 2^53 − 1 exactly, so an
 * integer input is bounded by its column here, in its schema (the OpenAPI document then states
 * the bound), and a larger one is a 422, never a database error. (Energy registers are `bigint`
 * columns and take the safe-integer range: server/pricing, ocpp/protocol/storable.ts.)
 */
export const INT4_MAX = 2_147_483_647;
export const INT4_MIN = -2_147_483_648;

/** The id of a row (a serial int4 column), in a JSON body. */
export const resourceId = z.number().int().min(1).max(INT4_MAX);

/** The id of a row in a query string. */
export const resourceIdQuery = z.coerce.number().int().min(1).max(INT4_MAX);

/** A whole count or amount (minor units) stored in, or priced into, an int4 column. */
export const int4 = (min = 0) => z.number().int().min(min).max(INT4_MAX);
