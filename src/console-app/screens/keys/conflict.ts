import { ApiFailure } from "../../api";

/**
 * A `409` of the service names no field (decisions.md 3), and the catalogue's text for it speaks of a change made
 * meanwhile; a form here knows which unique rule it can break (a key's location, a coupon's code), so the refusal
 * is shown beside that field in the console's words instead.
 */
export async function conflictOn<T>(field: string, text: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 409) {
      throw new ApiFailure(409, { code: error.code, message: error.message, data: { status: 409, params: { [field]: text } } });
    }
    throw error;
  }
}
