import { isUniqueViolation } from "./client";

/**
 * Inserts under a new random id, drawing again when the id is taken. A unique violation that `explain` attributes
 * to something the caller chose (a name, a location) is answered with `explain`'s error instead; five collisions
 * in a row mean something else is wrong, and the database error stands.
 */
export async function insertWithFreshId<T>(newId: () => string, write: (id: string) => Promise<T>, explain: () => Promise<Error | null>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write(newId());
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const known = await explain();
      if (known) throw known;
      if (attempt >= 4) throw err;
    }
  }
}
