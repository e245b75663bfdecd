import type { Envelope, Page } from '../client/types';

/**
 * The response envelopes of the API: `{type, data}` for one resource, `{type: "kind[]", data, links, meta}`
 * for lists. Their types are the typed client's (src/client/types.ts): one wire contract, which the
 * client states and the server builds (the client imports nothing from the server).
 */
export type { Envelope, Page, PageLinks, PageMeta } from '../client/types';

export function one<T>(type: string, data: T): Envelope<T> {
  return { type, data };
}

export interface PageInfo {
  /** Absolute URL of the list without its query string, e.g. https://dice.example/api/1.0/room */
  path: string;
  /** Query parameters to keep in every link (filters), besides `page`. */
  query?: Record<string, string | undefined>;
  page: number;
  perPage: number;
  total: number;
}

/** A Laravel-style paged list: `links.next` is a URL clients fetch verbatim (null on the last page). */
export function page<T>(type: string, data: T[], info: PageInfo): Page<T> {
  const lastPage = Math.max(1, Math.ceil(info.total / info.perPage));
  const link = (n: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(info.query ?? {})) if (v !== undefined && v !== '') params.set(k, v);
    params.set('page', String(n));
    return `${info.path}?${params.toString()}`;
  };
  const from = data.length ? (info.page - 1) * info.perPage + 1 : null;
  return {
    type: `${type}[]`,
    data,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: info.page > 1 ? link(Math.min(info.page - 1, lastPage)) : null,
      next: info.page < lastPage ? link(info.page + 1) : null,
    },
    meta: {
      current_page: info.page,
      from,
      last_page: lastPage,
      path: info.path,
      per_page: info.perPage,
      to: from === null ? null : from + data.length - 1,
      total: info.total,
    },
  };
}

/** A list that is not paged (small, bounded sets such as the rolls changed by one update). */
export function list<T>(type: string, data: T[]): Envelope<T[]> {
  return { type: `${type}[]`, data };
}
