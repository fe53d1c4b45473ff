/** One page of a list, as the service answers it. */
export interface Page<R> {
  data: R[];
  meta: { totalPages: number };
}

/**
 * Every record of a paged list, fetched one page at a time as the caller iterates (only one page is
 * held in memory). `pin` may fix the query after the first page, so records created meanwhile do not
 * shift records between pages.
 */
export async function* eachRecord<Q extends { page?: number | undefined }, R>(
  fetchPage: (query: Q) => Promise<Page<R>>,
  first: Q,
  pin?: (query: Q, newest: R) => Q,
): AsyncGenerator<R, void, undefined> {
  let query = first;
  for (;;) {
    const page = await fetchPage(query);
    for (const record of page.data) yield record;
    const current = query.page ?? 1;
    if (page.data.length === 0 || current >= page.meta.totalPages) return;
    const newest = page.data[0];
    if (pin && current === (first.page ?? 1) && newest !== undefined) query = pin(query, newest);
    query = { ...query, page: current + 1 };
  }
}
