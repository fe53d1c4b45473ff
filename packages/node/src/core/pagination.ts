import { type AnswerSlot, answerOf } from "./api-promise.js";

/** One page of a list, as the service answers it. */
export interface Page<R> {
  data: R[];
  meta: { totalPages: number };
}

/** One page of a list, and the answer it was read from. */
export interface AnsweredPage<R> {
  page: Page<R>;
  answer: AnswerSlot;
}

/**
 * Every page of a paged list, fetched one at a time as the caller iterates (only one page is held in
 * memory). `pin` may fix the query after the first page, so records created meanwhile do not shift
 * records between pages.
 */
export async function* eachPage<Q extends { page?: number | undefined }, R>(
  fetchPage: (query: Q) => Promise<Page<R>>,
  first: Q,
  pin?: (query: Q, newest: R) => Q,
): AsyncGenerator<AnsweredPage<R>, void, undefined> {
  let query = first;
  for (;;) {
    const reading = fetchPage(query);
    const page = await reading;
    yield { page, answer: answerOf(reading) };
    const current = query.page ?? 1;
    if (page.data.length === 0 || current >= page.meta.totalPages) return;
    const newest = page.data[0];
    if (pin && current === (first.page ?? 1) && newest !== undefined) query = pin(query, newest);
    query = { ...query, page: current + 1 };
  }
}

/** Every record of a paged list, one page at a time as the caller iterates (see {@link eachPage}). */
export async function* eachRecord<Q extends { page?: number | undefined }, R>(
  fetchPage: (query: Q) => Promise<Page<R>>,
  first: Q,
  pin?: (query: Q, newest: R) => Q,
): AsyncGenerator<R, void, undefined> {
  for await (const { page } of eachPage(fetchPage, first, pin)) yield* page.data;
}
